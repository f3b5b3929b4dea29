import Glibc
import QuotaWatchSystem
import Synchronization
import Testing

@testable import QuotaWatchEngine

/// Roots served by one daemon crawl a few at a time (``SharedRootServices/beginCrawl()``), and
/// the last crawl to end, with no other waiting, is the one that hands memory back.
@Suite("Roots' turns at their first crawl")
struct SharedRootServicesCrawlTurnTests {
    @Test("one slot: a second root waits until the first ends; only the last to end is told it was last")
    func oneAtATime() {
        let services = SharedRootServices(concurrentCrawls: 1)
        services.beginCrawl()
        let secondCrawling = Atomic<Bool>(false)
        let secondWasLast = Atomic<Bool>(false)
        let second = JoinableThread(name: "second root") {
            services.beginCrawl()
            secondCrawling.store(true, ordering: .sequentiallyConsistent)
            secondWasLast.store(services.endCrawl(), ordering: .sequentiallyConsistent)
        }
        // The second root has asked for its turn (counted before it blocks for a slot).
        while services.crawlsWaitingOrUnderway < 2 { sched_yield() }
        let tookTurnEarly = secondCrawling.load(ordering: .sequentiallyConsistent)
        #expect(!tookTurnEarly, "took a turn while the only slot was held")
        let firstWasLast = services.endCrawl()
        #expect(!firstWasLast, "the first root was told it was last with another waiting")
        second.join()
        let (crawled, wasLast) = (
            secondCrawling.load(ordering: .sequentiallyConsistent),
            secondWasLast.load(ordering: .sequentiallyConsistent)
        )
        #expect(crawled)
        #expect(wasLast)
        #expect(services.crawlsWaitingOrUnderway == 0)
    }

    @Test("as many roots crawl at once as there are slots, never more")
    func boundedByTheSlots() {
        let slots = 3
        let services = SharedRootServices(concurrentCrawls: slots)
        let crawling = Mutex((now: 0, most: 0))
        let gate = Mutex(false)
        let threads = (0..<12).map { index in
            JoinableThread(name: "root \(index)") {
                services.beginCrawl()
                crawling.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                // Held until every slot is taken, so the bound is reached, not just respected.
                while !gate.withLock({ $0 }) { sched_yield() }
                crawling.withLock { $0.now -= 1 }
                _ = services.endCrawl()
            }
        }
        while crawling.withLock({ $0.now }) < slots { sched_yield() }
        gate.withLock { $0 = true }
        for thread in threads { thread.join() }
        let most = crawling.withLock { $0.most }
        #expect(most == slots)
        #expect(services.crawlsWaitingOrUnderway == 0)
    }
}
