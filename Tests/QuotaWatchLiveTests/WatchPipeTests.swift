import Foundation
import QuotaWatchTestSupport
import Testing

/// `quotawatch watch ROOT | …`: no screen, one human line per event.
@Suite("watch without a terminal")
struct WatchPipeTests {
    @Test("pipe mode prints a quota_breach line with its path and sizes, and exits 0 on SIGTERM")
    func breachLine() throws {
        let tree = try TempTree(prefix: "qw-watch-pipe")
        for directory in ["root", "root/Caches", "root/Caches/Feed"] { try tree.makeDirectory(TreePath(directory)) }
        let cli = try CLIRunner.locate()
        let watch = try PipedWatch(
            cli,
            [
                "watch", tree.absolutePath("root"), "--socket", tree.absolutePath("run/watch.sock"),
                "--quota", "Caches/*=1MB", "--iec",
            ])
        defer { watch.cancelGuard() }
        let lines = watch.lines

        let ready = try #require(lines.next { $0.contains(" ready ") }, "no ready line; got \(lines.seen)")
        #expect(
            ready.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d ready "#, options: .regularExpression) != nil
        )

        try tree.writeFile("root/Caches/Feed/download", byteCount: 2_000_000)
        let breach = try #require(lines.next { $0.contains(" quota_breach ") }, "no breach line; got \(lines.seen)")
        // The breach comes as the write crosses the limit, so the size is anything past it.
        #expect(breach.contains("quota_breach Caches/Feed "))
        #expect(breach.contains(" MiB allocated, limit 976.6 KiB (rule Caches/*)"))

        let process = watch.terminate()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}

extension WatchPipeTests {
    @Test("attached to a running daemon, the event stream brings its breach line")
    func attachedBreachLine() throws {
        let tree = try TempTree(prefix: "qw-watch-attach")
        for directory in ["root", "root/Caches", "root/Caches/Feed"] { try tree.makeDirectory(TreePath(directory)) }
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(
            cli, root: tree.absolutePath("root"), socket: socket, options: ["--quota", "Caches/*=1MB"])
        defer { _ = try? daemon.stop() }

        // ROOT with its socket: a daemon answers there, so watch attaches instead of crawling.
        let watch = try PipedWatch(cli, ["watch", tree.absolutePath("root"), "--socket", socket])
        defer { watch.cancelGuard() }
        let lines = watch.lines

        // Events written after this line reach the view.
        let subscribed = try #require(lines.next { $0.contains(" subscribed ") }, "not subscribed; got \(lines.seen)")
        #expect(subscribed.contains("the daemon's events from now on"))
        try tree.writeFile("root/Caches/Feed/download", byteCount: 2_000_000)
        let breach = try #require(lines.next { $0.contains(" quota_breach ") }, "no breach line; got \(lines.seen)")
        #expect(breach.contains("quota_breach Caches/Feed "))
        #expect(breach.contains(" MB allocated, limit 1.0 MB (rule Caches/*)"))

        #expect(watch.terminate().terminationStatus == 0)
    }
}

/// `quotawatch watch` with its standard output on a pipe (pipe mode), read line by line.
struct PipedWatch {
    let process = Process()
    let lines: LineReader
    private let guardTimer: DispatchWorkItem

    /// With `mergingErrors`, standard error's lines (warnings, notes) are read with the events.
    init(_ cli: CLIRunner, _ arguments: [String], mergingErrors: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: cli.executablePath)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = mergingErrors ? output : FileHandle.nullDevice
        try process.run()
        // A hung watch must not hang the suite: it is killed after a minute, which ends the reads.
        let process = self.process
        guardTimer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: guardTimer)
        lines = LineReader(output.fileHandleForReading)
    }

    func cancelGuard() { guardTimer.cancel() }

    /// SIGTERM, and waits for the exit.
    func terminate() -> Process {
        process.terminate()
        process.waitUntilExit()
        return process
    }
}

@Suite("watch attached with run's options")
struct WatchAttachedOptionsTests {
    @Test(
        "watch ROOT with engine options, when a daemon serves ROOT, says they are ignored instead of dropping them silently"
    )
    func ignoredOptionsAreNamed() throws {
        let tree = try TempTree(prefix: "qw-watch-attach-options")
        try tree.makeDirectory("root")
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("run/daemon.sock")
        let daemon = try Daemon.start(cli, root: tree.absolutePath("root"), socket: socket)
        defer { _ = try? daemon.stop() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: cli.executablePath)
        process.arguments = [
            "watch", tree.absolutePath("root"), "--socket", socket, "--quota", "*=1MB", "--metrics-listen",
            "127.0.0.1:0", "--iec",
        ]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let guardTimer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: guardTimer)
        defer { guardTimer.cancel() }
        let lines = LineReader(errors.fileHandleForReading)

        let warning = try #require(lines.next { $0.contains("daemon already serves") }, "got \(lines.seen)")
        #expect(warning.contains("--quota, --metrics-listen ignored"), "\(warning)")
        #expect(!warning.contains("--iec"), "a display option is not ignored: \(warning)")
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}

/// Lines of a pipe, read as they come.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    private(set) var seen: [String] = []

    init(_ handle: FileHandle) { self.handle = handle }

    /// Reads until a line satisfies `matching`; nil at the end of the stream.
    func next(where matching: (String) -> Bool) -> String? {
        while true {
            while let newline = buffer.firstIndex(of: 0x0a) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                seen.append(line)
                if matching(line) { return line }
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}
