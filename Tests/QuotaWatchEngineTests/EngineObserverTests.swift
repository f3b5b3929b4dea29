import Dispatch
import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

/// Records what the engine tells it, and asks for a turn as soon as it has seen `ready`.
private final class RecordingObserver: EngineObserver, Sendable {
    struct Record: Sendable {
        var changes: [EngineLifecycle] = []
        var eventLines: [String] = []
        var turnTotals: [UInt64] = []
        var quotaPathsAtTurn: [String] = []
        var wantsTurn = false
    }

    // Written on the engine thread, read by the test.
    private let record = BlockingState(Record())

    var changes: [EngineLifecycle] { record.withLock { $0.changes } }
    var eventLines: [String] { record.withLock { $0.eventLines } }
    var turnTotals: [UInt64] { record.withLock { $0.turnTotals } }
    var quotaPathsAtTurn: [String] { record.withLock { $0.quotaPathsAtTurn } }

    var nextTurn: UInt64? { record.withLock { $0.wantsTurn ? 0 : nil } }

    func engine(_ change: EngineLifecycle, _ view: EngineView) {
        record.withLockWakingWaiters { record in
            record.changes.append(change)
            if change == .ready { record.wantsTurn = true }
        }
    }

    func engineEmitted(_ event: ObservedEvent) {
        let line = event.jsonLine(root: "/r")
        record.withLockWakingWaiters { $0.eventLines.append(line) }
    }

    func engineTurn(_ view: EngineView) {
        let total = view.tree.tally(of: view.tree.root).allocated
        let quotas = view.quotas()?.quotas.map(\.path) ?? []
        record.withLockWakingWaiters { record in
            record.wantsTurn = false
            record.turnTotals.append(total)
            record.quotaPathsAtTurn = quotas
        }
    }

    /// Waits until `condition` holds, for up to 60 s: the engine's own thread changes it.
    func wait(_ what: String, until condition: (Record) -> Bool) -> Bool {
        record.waitUntil(deadline: .now + .seconds(60)) { condition($0) }
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
