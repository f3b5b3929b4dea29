import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

/// Serialized: the log's redirection is one per process, and each test here sets it.
@Suite("Log redirection", .serialized)
struct LogRedirectTests {
    @Test("while redirected, messages reach the sink with their level and not stderr; nil gives stderr back")
    func redirectAndRestore() {
        let received = Mutex<[(LogLevel, String)]>([])
        let marker = "log-redirect-test-\(UInt64.random(in: 0...UInt64.max))"
        Log.redirect { level, text in
            guard text.contains(marker) else { return }  // other suites log in this process too
            received.withLock { $0.append((level, text)) }
        }
        Log.warning("first \(marker)")
        Log.redirect(to: nil)
        Log.warning("second \(marker)")

        let messages = received.withLock { $0 }
        #expect(messages.count == 1, "only the message sent while redirected reaches the sink")
        #expect(messages.first?.0 == .warning)
        #expect(messages.first?.1 == "quotawatch: warning: first \(marker)")
    }

    @Test(
        "a metrics file that cannot be written is a warning in the log, so watch's screen shows it instead of being written across"
    )
    func metricsTextfileWarnsThroughTheLog() throws {
        let tree = try TempTree(prefix: "qw-metrics-warning")
        try tree.makeDirectory("collector")
        let path = tree.absolutePath("collector/quotawatch.prom")
        let textfile = MetricsTextfile(path: Array(path.utf8), minimumInterval: .zero)
        try textfile.writeNow(MetricsSnapshot(version: "1", root: "/r"))
        try FileManager.default.removeItem(atPath: tree.absolutePath("collector"))

        let received = Mutex<[(LogLevel, String)]>([])
        Log.redirect { level, text in
            guard text.contains(path) else { return }
            received.withLock { $0.append((level, text)) }
        }
        defer { Log.redirect(to: nil) }
        textfile.start()
        textfile.offer(MetricsSnapshot(version: "1", root: "/r"))
        textfile.stop()  // writes what is pending, then joins the writer

        let messages = received.withLock { $0 }
        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.0 == .warning)
        #expect(
            messages.first?.1.hasPrefix("quotawatch: warning: cannot write the metrics file") ?? false, "\(messages)")
    }

    @Test(
        "on a root's thread and the threads it starts a line names the root, once; a thread for every root's work and one outside any do not"
    )
    func linesNameTheRootOfTheirThread() {
        let received = Mutex<[(LogLevel, String)]>([])
        let marker = "log-subject-test-\(UInt64.random(in: 0...UInt64.max))"
        Log.redirect { level, text in
            guard text.contains(marker) else { return }
            received.withLock { $0.append((level, text)) }
        }
        defer { Log.redirect(to: nil) }
        ThreadSubject.with("/home/a") {
            Log.warning("cleaner x failed \(marker)")
            Log.plain(.warning, "SIGHUP: not reloaded \(marker)")
            Log.info("ready: watching /home/a: 3 files \(marker)")
            JoinableThread(name: "inherits") { Log.error("from a child \(marker)") }.join()
            JoinableThread(name: "shared", inheritsSubject: false) { Log.notice("for every root \(marker)") }.join()
            ThreadSubject.with("/home/b") { Log.notice("nested \(marker)") }
            Log.notice("restored \(marker)")
        }
        Log.warning("outside \(marker)")

        #expect(
            received.withLock { $0.map(\.1) } == [
                "quotawatch: warning: /home/a: cleaner x failed \(marker)",
                "quotawatch: /home/a: SIGHUP: not reloaded \(marker)",
                "quotawatch: ready: watching /home/a: 3 files \(marker)",
                "quotawatch: error: /home/a: from a child \(marker)",
                "quotawatch: for every root \(marker)",
                "quotawatch: /home/b: nested \(marker)",
                "quotawatch: /home/a: restored \(marker)",
                "quotawatch: warning: outside \(marker)",
            ])
        #expect(received.withLock { $0.map(\.0) }.prefix(2) == [.warning, .warning])
    }
}
