import Foundation
import Glibc
import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchTestSupport
import Testing

/// The deleter in another process, where the test can give it what a test process cannot
/// have: a private mount namespace with bind mounts, or another user's identity.
@Suite("Deleting next to bind mounts and other users' writers")
struct DeletionBoundaryTests {
    @Test(
        "a bind mount of the same file system under ROOT is never crossed: not by the walk, not by emptying a tree",
        .enabled(if: CleanupProbe.mountNamespaceUnavailable == nil, "\(CleanupProbe.mountNamespaceUnavailable ?? "")"),
        arguments: ["openat2", "perComponent"], [false, true])
    func bindMount(walk: String, dryRun: Bool) throws {
        let tree = try TempTree()
        try tree.makeDirectories("root/cache/mnt")
        try tree.makeDirectories("outside/sub")
        try tree.makeDirectory("state")
        try tree.writeFile("outside/f", byteCount: 1000)
        try tree.writeFile("outside/sub/g", byteCount: 1000)
        try tree.writeFile("outside-file", byteCount: 100)
        try tree.writeFile("root/cache/bound", byteCount: 10)
        try tree.writeFile("root/cache/own", byteCount: 10)
        let before = TempTree.namesAndSizes(below: tree.absolutePath("outside"))
        // The same file system on both sides: only the mount tells them apart.
        let script = """
            mount --bind "$3/outside" "$1/cache/mnt" && mount --bind "$3/outside-file" "$1/cache/bound" && \
            exec "$2" delete "$1" "$3/state" cache/mnt/f cache/mnt/sub cache/mnt cache/bound cache
            """
        let result = try ProcessRunner.run(
            "unshare",
            [
                "-m", "--propagation", "private", "sh", "-c", script, "sh", tree.absolutePath("root"),
                try CleanupProbe.path(), tree.rootPath,
            ],
            environment: ["QUOTAWATCH_PROBE_WALK": walk, "QUOTAWATCH_PROBE_DRY_RUN": dryRun ? "1" : "0"])
        #expect(result.exitStatus == 0, "\(result.errorText)")
        let lines = result.outputText.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(4)) == [
                "cache/mnt/f skipped mount_point", "cache/mnt/sub skipped mount_point", "cache/mnt skipped mount_point",
                "cache/bound skipped mount_point",
            ], "\(result.outputText)")
        // The tree: its own file goes (or would), both mount points stay, named with the reason.
        let treeLine = lines.last ?? ""
        #expect(treeLine.hasPrefix("cache removed 1 kept "), "\(result.outputText)")
        #expect(treeLine.contains(" kept cache/mnt=mount_point") && treeLine.contains(" kept cache/bound=mount_point"))
        #expect(TempTree.namesAndSizes(below: tree.absolutePath("outside")) == before)
        #expect(try tree.exists("outside-file"))
        #expect(try tree.exists("root/cache/own") == dryRun)
    }

    @Test(
        "a daemon that is not root cannot see root's descriptors: a write lease decides, and refusals name why",
        .enabled(
            if: UnprivilegedExecution.isAvailable,
            "needs root, setpriv, and a temp directory that uid 65534 can reach (the deleter runs as nobody)"),
        arguments: [false, true])
    func otherUsersWriter(dryRun: Bool) throws {
        let tree = try TempTree()
        try tree.makeDirectory("root")
        try tree.makeDirectory("state")
        for name in ["held", "free", "foreign"] { try tree.writeFile(TreePath("root/" + name), byteCount: 4096) }
        for path: TreePath in ["", "root", "state", "root/held", "root/free"] { try tree.setOwner(path, .nobody) }
        // This process (root) writes 'held': /proc does not show nobody that descriptor.
        let held = open(tree.absolutePath("root/held"), O_WRONLY | O_CLOEXEC)
        #expect(held >= 0)
        defer { close(held) }
        let result = try ProcessRunner.run(
            try CleanupProbe.path(),
            ["delete", tree.absolutePath("root"), tree.absolutePath("state"), "held", "foreign", "free"],
            as: .nobody,
            environment: ["QUOTAWATCH_PROBE_WRITERS": "proc", "QUOTAWATCH_PROBE_DRY_RUN": dryRun ? "1" : "0"])
        #expect(result.exitStatus == 0, "\(result.errorText)")
        #expect(
            result.outputText == "held skipped open_unseen\nforeign skipped writers_unverifiable\nfree removed 1\n",
            "\(result.outputText)")
        #expect(try tree.exists("root/held") && tree.exists("root/foreign"))
        #expect(try tree.exists("root/free") == dryRun)
    }
}
