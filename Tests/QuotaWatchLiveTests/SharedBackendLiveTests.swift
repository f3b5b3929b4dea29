import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `run ROOT…` with more roots than inotify allows instances: the process holds one inotify
/// instance (or one fanotify group) for all of them, not one per root.
@Suite("One backend for many roots")
struct SharedBackendLiveTests {
    private static let rootCount = 150

    /// The kernel objects the process holds, by kind: "inotify" and "[fanotify]" as /proc names them.
    private func kernelObjects(of processID: pid_t) throws -> [String: Int] {
        let directory = "/proc/\(processID)/fd"
        var counts: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                target.hasPrefix("anon_inode:")
            else { continue }
            counts[String(target.dropFirst("anon_inode:".count)), default: 0] += 1
        }
        return counts
    }

    private func allocated(_ daemon: Daemon, _ path: String, socket: String) throws -> Int64 {
        let result = try daemon.statusCommand(["status", path, "--socket", socket, "--sync", "--json"])
        guard result.exitStatus == 0 else { throw DaemonError("status \(path) failed", daemon: daemon, result: result) }
        return try #require(try LiveStatus(json: result.standardOutput).report.directoriesByPath["."]).allocated
    }

    private func du(_ path: String) throws -> Int64 {
        let result = try ProcessRunner.run("/usr/bin/du", ["-sB1", path])
        return try #require(Int64(result.outputText.split(separator: "\t").first ?? ""), "\(result)")
    }

    @Test("150 roots in one daemon, past max_user_instances: one inotify instance or one fanotify group, exact tallies")
    func manyRootsOneKernelObject() throws {
        let text = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_instances", encoding: .utf8)) ?? ""
        let instances = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let fanotify = DaemonBackend.requested == "fanotify"
        guard fanotify || instances < Self.rootCount else {
            print(
                "skipped: fs.inotify.max_user_instances is \(instances), not below the \(Self.rootCount) roots "
                    + "this test starts, so one instance per root would not fail here either")
            return
        }
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let others = (1..<Self.rootCount).map { TreePath("root-\($0)") }
        try tree.writeFile(LiveFixture.root / "first", byteCount: 10_000)
        var arguments: [String] = []
        for other in others {
            try tree.makeDirectory(other)
            try tree.makeDirectory(other / "d")
            try tree.writeFile(other / "d" / "f", byteCount: 4_000)
            arguments += [tree.absolutePath(other), "--socket", tree.absolutePath(TreePath("run") / "\(other).sock")]
        }
        let daemon = try fixture.start(options: arguments)
        try daemon.waitForEvent("ready", count: Self.rootCount, timeout: .seconds(180))

        let objects = try kernelObjects(of: daemon.processID)
        #expect(objects["inotify", default: 0] == (fanotify ? 0 : 1), "\(objects)")
        #expect(objects["[fanotify]", default: 0] == (fanotify ? 1 : 0), "\(objects)")

        // The last root's changes reach the last root's engine, and only it.
        let last = try #require(others.last)
        let lastPath = tree.absolutePath(last)
        let lastSocket = tree.absolutePath(TreePath("run") / "\(last).sock")
        let neighbour = others[others.count - 2]
        let neighbourSocket = tree.absolutePath(TreePath("run") / "\(neighbour).sock")
        let neighbourBefore = try allocated(daemon, tree.absolutePath(neighbour), socket: neighbourSocket)
        try tree.makeDirectory(last / "new")
        try tree.writeFile(last / "new" / "g", byteCount: 300_000)
        try tree.writeFile(last / "d" / "f2", byteCount: 90_000)
        let counted = try allocated(daemon, lastPath, socket: lastSocket)
        #expect(counted == (try du(lastPath)), "the last root's tally against du")
        #expect(counted > 300_000)
        #expect(try allocated(daemon, tree.absolutePath(neighbour), socket: neighbourSocket) == neighbourBefore)
        #expect(try allocated(daemon, fixture.rootPath, socket: fixture.socketPath) == (try du(fixture.rootPath)))

        // A root removed lets go of its keys alone: the others are still told of their changes.
        try tree.removeSubtree(others[0])
        try daemon.waitForEvent("root_gone", description: "for \(others[0])") {
            $0.text.contains(tree.absolutePath(others[0]))
        }
        try tree.writeFile(last / "new" / "h", byteCount: 50_000)
        #expect(try allocated(daemon, lastPath, socket: lastSocket) == (try du(lastPath)))
        let stopped = try daemon.stop()
        #expect(stopped.exitStatus == 0, "\(stopped)")
    }
}
