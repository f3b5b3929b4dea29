import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// One socket convention: the shipped unit and the commands agree on where the daemon listens.
@Suite("the socket convention of the unit and the commands")
struct SocketConventionTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../contrib/systemd/quotawatch@.service").standardized.path

    /// The unit's ExecStart= words, with %f, %i and %t filled in as systemd fills them for `root`,
    /// the config directory moved to `configDirectory` and the binary to the one under test.
    static func execStart(root: String, instance: String, configDirectory: String, binary: String) throws -> [String] {
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        return line.dropFirst("ExecStart=".count).split(separator: " ").map {
            String($0).replacingOccurrences(of: "/usr/local/bin/quotawatch", with: binary)
                .replacingOccurrences(of: "/etc/quotawatch/", with: configDirectory + "/")
                .replacingOccurrences(of: "%f", with: root).replacingOccurrences(of: "%i", with: instance)
                .replacingOccurrences(of: "%t", with: "/run")
        }
    }

    @Test(
        "a daemon started exactly as the unit's ExecStart is found by 'status ROOT' with no --socket",
        .enabled(if: geteuid() == 0, "the unit runs as root: its default socket is root's, under /run/quotawatch"))
    func unitAndStatusAgree() throws {
        let cli = try CLIRunner.locate()
        let tree = try TempTree(prefix: "qw-unit-socket")
        try tree.makeDirectories("srv/app")
        try tree.makeDirectory("etc")
        try tree.writeFile("srv/app/file", byteCount: 10_000)
        let root = tree.absolutePath("srv/app")
        let instance = String(root.dropFirst()).replacingOccurrences(of: "/", with: "-")
        try tree.writeFile(TreePath("etc/\(instance).yaml"), contents: Array("quotas: []\n".utf8))
        let words = try Self.execStart(
            root: root, instance: instance, configDirectory: tree.absolutePath("etc"), binary: cli.executablePath)
        #expect(!words.contains("--socket"), "the unit names a socket of its own: \(words)")
        let listener = try NotifyListener(path: tree.absolutePath("notify.sock"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: words[0])
        process.arguments = Array(words.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["NOTIFY_SOCKET": tree.absolutePath("notify.sock")]) { _, new in new }
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        try listener.wait(for: "READY=1") { NotifyListener.index(of: "READY=1", in: $0) != nil }
        let status = try cli.run(["status", root, "--json"])
        #expect(status.exitStatus == 0, "status ROOT did not find the service: \(status)")
        #expect(status.outputText.contains("\"allocated\""), "\(status)")
    }

    @Test("watch ROOT, where a daemon serves ROOT at a socket of its own, attaches to it and says so")
    func watchFindsADaemonElsewhere() throws {
        let tree = try TempTree(prefix: "qw-watch-elsewhere")
        try tree.makeDirectory("root")
        let cli = try CLIRunner.locate()
        let socket = tree.absolutePath("elsewhere/daemon.sock")
        let daemon = try Daemon.start(cli, root: tree.absolutePath("root"), socket: socket)
        defer { _ = try? daemon.stop() }
        // No --socket: the default path has no daemon, but /proc shows the one serving ROOT.
        let watch = try PipedWatch(cli, ["watch", tree.absolutePath("root")], mergingErrors: true)
        defer { watch.cancelGuard() }
        let note = try #require(
            watch.lines.next { $0.contains("already serves") }, "no note; got \(watch.lines.seen)")
        #expect(note.contains("daemon.sock"), "\(note)")
        #expect(watch.lines.next { $0.contains(" subscribed ") } != nil, "not attached; got \(watch.lines.seen)")
        #expect(!watch.lines.seen.contains { $0.contains(" ready ") }, "it crawled ROOT again: \(watch.lines.seen)")
        _ = watch.terminate()
    }
}
