import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `quotawatch status` asks the daemon for what it shows, and the daemon stops cleanly while
/// clients are connected.
@Suite("status selections and a clean stop")
struct StatusSelectionTests {
    private let root = LiveFixture.root

    private func paths(_ daemon: Daemon, _ arguments: [String]) throws -> [String] {
        let result = try daemon.statusCommand(
            ["status", daemon.root, "--socket", daemon.socketPath, "--json"] + arguments)
        #expect(result.exitStatus == 0, "\(result)")
        return try ScanReport.decode(result.standardOutput).directories.map(\.path)
    }

    @Test("--depth, --path and --top select on the daemon's side; --json alone is the whole tree")
    func selections() throws {
        let fixture = try LiveFixture()
        for directory in [root / "a", root / "a" / "x", root / "a" / "x" / "deep", root / "a-b", root / "b"] {
            try fixture.tree.makeDirectory(directory)
        }
        try fixture.tree.writeFile(root / "b" / "big", byteCount: 400_000)
        try fixture.tree.writeFile(root / "a" / "x" / "f", byteCount: 100_000)
        let daemon = try fixture.start()

        #expect(try paths(daemon, []) == [".", "a", "a/x", "a/x/deep", "a-b", "b"])
        #expect(try paths(daemon, ["--depth", "all"]) == [".", "a", "a/x", "a/x/deep", "a-b", "b"])
        #expect(try paths(daemon, ["--depth", "1"]) == [".", "a", "a-b", "b"])
        #expect(try paths(daemon, ["--path", "a", "--depth", "1"]) == ["a", "a/x"])
        #expect(try paths(daemon, ["--path", "./a/x/"]) == ["a/x", "a/x/deep"])
        #expect(try paths(daemon, ["--top", "2"]) == [".", "b"])
        #expect(try paths(daemon, ["--top", "3", "--sync"]) == [".", "a", "b"])

        let table = try daemon.statusCommand(["status", daemon.root, "--socket", daemon.socketPath])
        #expect(table.exitStatus == 0)
        #expect(table.outputText.contains("a-b") && !table.outputText.contains("a/x"), "the table shows depth 1")

        let missing = try daemon.statusCommand(["status", daemon.root, "--socket", daemon.socketPath, "--path", "nope"])
        #expect(missing.exitStatus == 1)
        #expect(missing.errorText.contains("has no directory 'nope'"), "\(missing)")
        let bad = try daemon.statusCommand(["status", daemon.root, "--socket", daemon.socketPath, "--path", "../x"])
        #expect(bad.exitStatus == 64, "\(bad)")
        #expect(bad.errorText.contains("'..'"))
    }

    @Test("SIGTERM stops the daemon at once while a client holds a silent connection")
    func stopsWithSilentClient() throws {
        let fixture = try LiveFixture()
        let daemon = try fixture.start()
        let silent = try connect(fixture.socketPath)
        defer { close(silent) }
        // The daemon has accepted it once it answers another client.
        _ = try daemon.status(sync: false)

        let started = ContinuousClock.now
        let exit = try daemon.stop(SIGTERM, timeout: .seconds(10))
        #expect(exit.exitStatus == 0, "\(exit)")
        // A connection thread waiting for a request would have held it for the 5 s request timeout.
        #expect(ContinuousClock.now - started < .seconds(3), "the daemon took \(ContinuousClock.now - started) to stop")
        var byte: UInt8 = 0
        #expect(read(silent, &byte, 1) == 0, "the silent connection is closed, not left open")
    }

    private func connect(_ path: String) throws -> CInt {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw SystemCallError("connect", path, errno: errno) }
        return descriptor
    }
}
