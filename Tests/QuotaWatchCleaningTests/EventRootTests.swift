import Foundation
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Synchronization
import Testing

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// `root` where each event shape is encoded: the engine's own events, the socket stream's
/// lines, and the context a cleaner gets.
@Suite("the root in every event shape")
struct EventRootTests {
    /// Bytes that are not UTF-8 and a quote, escaped as paths are.
    let root = EscapedName.string(Array("/srv/a\"pp ".utf8) + [0xfe])

    private func rootField(_ line: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["root"] as? String
    }

    @Test("every engine event's line has the root, encoded as its paths are")
    func engineEvents() {
        let summary = CleanupSummary(
            runID: "1-1", triggers: [.manual("manual")], cleaners: [], seconds: 0.5, dryRun: true,
            time: WallTime(millisecondsSinceEpoch: 0))
        let events: [EngineEvent] = [
            .ready(directories: 1, files: 2, allocated: 3, seconds: 0.25, backend: "inotify", backendReason: "r"),
            .overflow,
            .resynced(directories: 1, seconds: 1),
            .degraded(paths: [root], watchesNeeded: 1, maxUserWatches: 1, message: "m"),
            .rootGone(message: "gone"), .configError(message: "bad", time: "t"),
            .configReloaded(quotas: 1, budgets: 0, time: "t"), .cleanup(summary),
        ]
        for event in events {
            let line = event.jsonLine(root: root)
            #expect(rootField(line) == root, "\(line)")
            #expect(line.contains(#""root":"/srv/a\"pp \\xfe""#), "\(line)")
        }
        // The degraded path and the root: one encoder, one spelling.
        let degraded = EngineEvent.degraded(paths: [root], watchesNeeded: 1, maxUserWatches: 1, message: "m")
        #expect(degraded.jsonLine(root: root).contains(#""paths":["/srv/a\"pp \\xfe"]"#))
    }

    @Test("the socket stream's own lines, subscribed and dropped, have the root")
    func streamLines() {
        let feed = ControlEventFeed(capacity: 2, root: root)
        #expect(rootField(feed.subscribedLine) == root, "\(feed.subscribedLine)")
        let subscription = feed.subscribe()
        for index in 0..<5 { feed.publish("line \(index)") }
        let lines = subscription.next(timeout: .seconds(10)) ?? []
        #expect(lines.count == 3 && rootField(lines[0]) == root, "\(lines)")
        feed.unsubscribe(subscription)
    }

    /// Records the root of each context it is given.
    final class RootRecorder: Cleaner {
        let name = "recorder"
        let seen = Mutex<[String?]>([])
        func clean(_ context: CleanupContext) throws -> CleanupResult {
            seen.withLock { $0.append(context.root) }
            return CleanupResult()
        }
    }

    @Test("the runner hands its root to every cleaner; a command cleaner gets QUOTAWATCH_ROOT and it on stdin")
    func cleanerContext() throws {
        let recorder = RootRecorder()
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(dryRun: true, root: root), backend: RecordingBackend(),
            instance: "t", prepare: { _ in CleanupInputs(level: .normal) }, completion: { _ in })
        runner.register(recorder)
        runner.submit(.manual("manual"))
        runner.waitUntilIdle()
        #expect(recorder.seen.withLock { $0 } == [root])

        let tree = try TempTree()
        let output = tree.absolutePath("") + "/out"
        let cleaner = CommandCleaner(
            name: "custom",
            arguments: ["/bin/sh", "-c", #"cat > "$0"; printf '%s\n' "$QUOTAWATCH_ROOT" >> "$0""#, output].map {
                Array($0.utf8)
            })
        let context = CleanupContext(
            trigger: .manual("manual"), inputs: CleanupInputs(level: .normal), dryRun: false,
            remover: Remover(backend: RecordingBackend(), trigger: "manual", cleaner: "custom", run: "r"), runID: "r",
            root: root)
        _ = try cleaner.clean(context)
        let written = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(written.count == 2 && rootField(written[0]) == root && written[1] == root, "\(written)")
    }
}
