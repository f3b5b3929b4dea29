import Dispatch
import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@testable import QuotaWatchEngine

/// Records what the engine tells it, and asks for a turn as soon as it has seen `ready`.
private final class RecordingObserver: EngineObserver, @unchecked Sendable {
    // Written on the engine thread, read by the test after the engine has been joined or
    // under `lock`.
    let lock = NSCondition()
    var changes: [EngineLifecycle] = []
    var eventLines: [String] = []
    var turnTotals: [UInt64] = []
    var quotaPathsAtTurn: [String] = []
    private var wantsTurn = false

    var nextTurn: UInt64? { lock.withLock { wantsTurn ? 0 : nil } }

    func engine(_ change: EngineLifecycle, _ view: EngineView) {
        lock.withLock {
            changes.append(change)
            if change == .ready { wantsTurn = true }
            lock.broadcast()
        }
    }

    func engineEmitted(_ event: ObservedEvent) {
        lock.withLock {
            eventLines.append(event.jsonLine(root: "/r"))
            lock.broadcast()
        }
    }

    func engineTurn(_ view: EngineView) {
        let total = view.tree.tally(of: view.tree.root).allocated
        let quotas = view.quotas()?.quotas.map(\.path) ?? []
        lock.withLock {
            wantsTurn = false
            turnTotals.append(total)
            quotaPathsAtTurn = quotas
            lock.broadcast()
        }
    }

    /// Waits until `condition` holds, for up to 60 s: the engine's own thread changes it.
    func wait(_ what: String, until condition: (RecordingObserver) -> Bool) -> Bool {
        lock.withLock {
            let deadline = Date().addingTimeInterval(60)
            while !condition(self) {
                if !lock.wait(until: deadline) { return false }
            }
            return true
        }
    }
}

@Suite("Engine observers")
struct EngineObserverTests {
    @Test("an observer hears ready, every event, its turn with the tree and quotas, and stopping")
    func observerFollowsTheEngine() throws {
        let tree = try TempTree(prefix: "qw-observer")
        try tree.makeDirectory("root")
        try tree.makeDirectory("root/cache")
        try tree.writeFile("root/cache/a", byteCount: 40_000)
        let observer = RecordingObserver()
        var options = EngineOptions(
            root: tree.absoluteBytes("root"), rootDisplay: tree.absolutePath("root"),
            socketPath: tree.absoluteBytes("control.sock"))
        options.observers = [observer]
        options.policy.quotas = [QuotaRule(glob: try PathGlob("cache"), limit: 4096)]
        let engine = LiveEngine(options: options)
        let exit = Mutex<EngineExit?>(nil)
        let runner = JoinableThread(name: "test-engine") {
            let result = engine.run(progress: nil)
            exit.withLock { $0 = result }
        }
        #expect(observer.wait("a turn") { !$0.turnTotals.isEmpty }, "no turn after ready")
        #expect(
            observer.wait("a breach") { $0.eventLines.contains { $0.contains(#""event":"quota_breach""#) } },
            "the breach of cache's 4 096-byte quota never reached the observer")
        engine.stop()
        runner.join()

        #expect(exit.withLock { $0 } == .stopped)
        #expect(observer.changes == [.ready, .stopping])
        #expect(observer.eventLines.first?.contains(#""event":"ready""#) == true)
        let du = try DuOracle.measure(tree, root: "root", directories: [.root])
        #expect(
            observer.turnTotals.first.map(Int64.init) == du.sizes[.root]?.allocated, "the turn's tree disagrees with du"
        )
        #expect(observer.quotaPathsAtTurn == ["cache"])
    }
}
