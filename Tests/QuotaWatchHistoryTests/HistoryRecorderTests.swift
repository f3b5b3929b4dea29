import Dispatch
import Foundation
import QuotaWatchEngine
import QuotaWatchHistory
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

/// The recorder's writer against a database it cannot use: locked by another connection,
/// or not a database at all. The engine side never waits; what cannot be kept is counted.
@Suite("history recorder: a locked or damaged database")
struct HistoryRecorderTests {
    /// Collects the recorder's warnings; a test waits for one that says something.
    final class Reports: Sendable {
        private let lines = Mutex<[String]>([])
        private let arrived = DispatchSemaphore(value: 0)

        var report: @Sendable (String) -> Void {
            { [self] line in
                lines.withLock { $0.append(line) }
                arrived.signal()
            }
        }

        var all: [String] { lines.withLock { $0 } }

        /// Waits until a warning contains `text`.
        func wait(for text: String, timeout: Duration = .seconds(20)) -> Bool {
            let deadline = DispatchTime.now() + .seconds(Int(timeout.components.seconds))
            while !all.contains(where: { $0.contains(text) }) {
                if arrived.wait(timeout: deadline) == .timedOut { return all.contains { $0.contains(text) } }
            }
            return true
        }
    }

    private func settings(_ state: TempTree, capacity: Int = 1000) -> HistorySettings {
        var settings = HistorySettings(stateDirectory: Array(state.rootPath.utf8), root: "/r")
        settings.retryAfter = .milliseconds(50)
        settings.busyTimeoutMilliseconds = 50
        settings.capacity = capacity
        return settings
    }

    private func kinds(_ state: TempTree) throws -> [String] {
        try HistoryStore(readingFrom: Array(state.absolutePath("history.sqlite").utf8)).events(HistoryFilter()).map(
            \.kind)
    }

    @Test("locked by another connection: the batch waits in memory, the overflow is counted, nothing else is lost")
    func locked() throws {
        let state = try TempTree(prefix: "qw-history-locked")
        let path = Array(state.absolutePath("history.sqlite").utf8)
        _ = try HistoryStore(writingTo: path)
        let holder = try SQLiteConnection(path: path, mode: .readWrite)
        try holder.execute("BEGIN EXCLUSIVE")
        try holder.execute("INSERT INTO events(time_ms, kind, line) VALUES (0, 'held', '{}')")

        let reports = Reports()
        let recorder = HistoryRecorder(settings: settings(state, capacity: 3), report: reports.report)
        recorder.start()
        for _ in 0..<5 { recorder.engineEmitted(.engine(.overflow)) }
        #expect(reports.wait(for: "cannot write"), "\(reports.all)")
        #expect(reports.wait(for: "dropped"), "\(reports.all)")

        try holder.execute("COMMIT")
        #expect(reports.wait(for: "again"), "\(reports.all)")
        recorder.stop()
        let recorded = try kinds(state)
        #expect(recorded.filter { $0 == "overflow" }.count == 3, "\(recorded)")
        #expect(recorded.contains("history_dropped"), "\(recorded)")
        let dropped = try HistoryStore(readingFrom: path).events(HistoryFilter(kinds: ["history_dropped"]))
        #expect(dropped.first?.line.contains("\"dropped\":2") ?? false, "\(dropped)")
    }

    @Test("not a database: moved aside, a new one started with a history_reset event")
    func corrupt() throws {
        let state = try TempTree(prefix: "qw-history-corrupt")
        let garbage = (0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        try state.writeFile("history.sqlite", contents: garbage)

        let reports = Reports()
        let recorder = HistoryRecorder(settings: settings(state), report: reports.report)
        recorder.start()
        recorder.engineEmitted(.engine(.overflow))
        #expect(reports.wait(for: "not a usable database"), "\(reports.all)")
        recorder.stop()

        let names = try FileManager.default.contentsOfDirectory(atPath: state.rootPath)
        let movedName = try #require(names.first { $0.hasPrefix("history.sqlite.corrupt-") }, "\(names)")
        let moved = try Data(contentsOf: URL(fileURLWithPath: state.absolutePath(TreePath(movedName))))
        #expect(Array(moved) == garbage)
        let recorded = try kinds(state)
        #expect(recorded.contains("history_reset") && recorded.contains("overflow"), "\(recorded)")
    }

    @Test("a fault armed where the recorder starts reaches its writer thread: a full disk there is warned, not missed")
    func faultReachesTheWriter() throws {
        let state = try TempTree(prefix: "qw-history-fault")
        var settings = settings(state)
        settings.stateDirectory = Array(state.absolutePath("state").utf8)
        let faults = FaultPlan()
        faults.fail(.mkdirat, with: .noSpace)
        let reports = Reports()
        let recorder = HistoryRecorder(settings: settings, report: reports.report)
        faults.arm { recorder.start() }
        recorder.engineEmitted(.engine(.overflow))
        #expect(reports.wait(for: "cannot create the state directory"), "\(reports.all)")
        recorder.stop()
        #expect(faults.calls(.mkdirat).contains { $0.injected == .noSpace }, "\(faults.trace)")
        #expect(!FileManager.default.fileExists(atPath: state.absolutePath("state")))
    }

    @Test("a recorder never started leaves no thread and stops at once")
    func neverStarted() throws {
        let state = try TempTree(prefix: "qw-history-idle")
        let recorder = HistoryRecorder(settings: settings(state), report: { _ in })
        recorder.engineEmitted(.engine(.overflow))
        recorder.stop()
        recorder.start()
        #expect(!FileManager.default.fileExists(atPath: state.absolutePath("history.sqlite")))
    }
}

@Suite("history recorder: its warnings")
struct HistoryRecorderLogTests {
    @Test("by default a warning goes to the daemon's log, which watch shows on its screen instead of stderr")
    func warningsGoThroughTheLog() throws {
        let state = try TempTree(prefix: "qw-history-log")
        try state.writeFile("not-a-directory", byteCount: 1)
        // A state directory below a regular file: it can never be made.
        let settings = HistorySettings(
            stateDirectory: Array(state.absolutePath("not-a-directory/state").utf8), root: "/r")
        let marker = state.rootPath
        let received = Mutex<[(LogLevel, String)]>([])
        Log.redirect { level, text in
            guard text.contains(marker) else { return }  // other suites log in this process too
            received.withLock { $0.append((level, text)) }
        }
        defer { Log.redirect(to: nil) }
        let recorder = HistoryRecorder(settings: settings)
        recorder.start()
        recorder.engineEmitted(.engine(.overflow))
        recorder.stop()  // reports what could not be written before it returns

        let messages = received.withLock { $0 }
        #expect(!messages.isEmpty, "no warning reached the log")
        #expect(
            messages.contains { $0.1.contains("cannot write") && $0.1.contains("--no-history") }, "\(messages)"
        )
        #expect(
            messages.allSatisfy { $0.0 == .warning && $0.1.hasPrefix("quotawatch: warning: history: ") }, "\(messages)")
    }
}
