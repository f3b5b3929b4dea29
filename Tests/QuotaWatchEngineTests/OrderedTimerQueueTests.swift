import Testing

@testable import QuotaWatchEngine

@Suite("ordered timer queue")
struct OrderedTimerQueueTests {
    @Test("entries come due in order, none before its deadline, none lost across compactions")
    func dueInOrderAcrossCompactions() {
        var queue = OrderedTimerQueue<Int>()
        var popped: [Int] = []
        var next = 0
        for now in stride(from: UInt64(0), to: 5_000, by: 7) {
            for _ in 0..<3 {
                queue.append(next, at: now + 100)
                next += 1
            }
            while let (deadline, element) = queue.popDue(now: now) {
                #expect(deadline <= now, "\(element) came out before its deadline")
                popped.append(element)
            }
            queue.compact()
        }
        #expect(popped == Array(0..<popped.count), "in order, each once")
        #expect(queue.waiting.map(\.element) == Array(popped.count..<next), "the rest still waits")
        #expect(queue.nextDeadline == queue.waiting.first?.deadline)
        queue.removeAll()
        #expect(queue.nextDeadline == nil && queue.waiting.isEmpty)
    }
}
