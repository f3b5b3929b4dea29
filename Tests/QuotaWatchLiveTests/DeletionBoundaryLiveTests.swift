import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Deletion next to a bind mount of the same file system (inside a quota directory, under
/// `tmp/`, among the caches), and with a full audit-log disk: the daemon's eviction and
/// `expire`, and `clean --yes`, each run in a private mount namespace (`unshare -m`) where
/// the mount exists. Nothing on the other side of a mount may go, and what is kept says why.
@Suite("deleting next to bind mounts and with a full audit log, end to end")
struct DeletionBoundaryLiveTests {
    static let unavailable: String? = {
        guard geteuid() == 0 else { return "needs root to bind-mount in a private mount namespace" }
        guard
            let probe = try? ProcessRunner.run(
                "unshare", ["-m", "--propagation", "private", "sh", "-c", "mount --bind /tmp /mnt && umount /mnt"])
        else { return "unshare (util-linux) is not installed" }
        return probe.exitStatus == 0 ? nil : "'unshare -m' with a bind mount is not permitted here: \(probe.errorText)"
    }()

    private let root = LiveFixture.root
    private let outside = LiveFixture.outside

    /// `unshare -m` and the given mounts, then the command appended (the daemon's own).
    private static func namespace(mounts: [(from: String, to: String)], state: String) -> [String] {
        let mounting = mounts.map { "mount --bind '\($0.from)' '\($0.to)' && " }.joined()
        return [
            "unshare", "-m", "--propagation", "private", "sh", "-c",
            mounting + "exec env STATE_DIRECTORY='\(state)' \"$0\" \"$@\"",
        ]
    }

    /// Files of `bytes` each, modified in 2020 (older than anything else here).
    private func makeOldFiles(_ tree: TempTree, _ directory: TreePath, count: Int, bytes: Int) throws {
        try tree.makeDirectories(directory)
        for index in 1...count {
            try tree.writeFile(directory / "d\(index)", byteCount: bytes)
            try setModified(tree, directory / "d\(index)", secondsSinceEpoch: 1_577_836_800 + index)
        }
    }

    /// Every kept entry of a cleanup line under `prefix` must be kept as a mount point.
    private func expectKeptAsMountPoints(_ line: CleanupLine, _ cleaner: String, under prefix: String) {
        for (reason, kept) in line.skipped(cleaner) where kept.examples.contains(where: { $0.hasPrefix(prefix) }) {
            #expect(reason.contains("is a mount point"), "\(kept.examples): \(reason)")
        }
        #expect(!line.paths(cleaner).contains { $0.hasPrefix(prefix) }, "\(line.text)")
    }

    @Test(
        "run --clean: eviction in a quota directory holding a bind mount removes nothing on the other side",
        .enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func evictionNextToABindMount() throws {
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-mount-state")
        let tree = fixture.tree
        let cache = root / "Caches" / "a"
        try makeOldFiles(tree, cache, count: 3, bytes: 20_000)
        try tree.makeDirectories(cache / "mnt")
        // The oldest files of all, behind the mount: eviction would take them first.
        try makeOldFiles(tree, outside / "data", count: 5, bytes: 30_000)
        for index in 1...5 { try setModified(tree, outside / "data" / "d\(index)", secondsSinceEpoch: 1_000 + index) }
        let wrapper = Self.namespace(
            mounts: [(tree.absolutePath(outside / "data"), tree.absolutePath(cache / "mnt"))], state: state.rootPath)
        let daemon = try fixture.start(options: ["--quota", "Caches/*=100kB", "--clean"], wrapper: wrapper)
        let line = try CleanupLine(try daemon.waitForEvent("cleanup"))
        #expect(!line.dryRun, "\(line.text)")
        expectKeptAsMountPoints(line, "evict", under: "Caches/a/mnt")
        for index in 1...5 { #expect(try tree.exists(outside / "data" / "d\(index)"), "d\(index)\n\(line.text)") }
        try fixture.stopCleanly()
    }

    @Test(
        "run --clean: the expire cleaner under tmp/ with a bind-mounted directory there removes only ROOT's files",
        .enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func expireNextToABindMount() throws {
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-mount-state")
        let tree = fixture.tree
        try makeOldFiles(tree, root / "tmp" / "own", count: 2, bytes: 4_000)
        try tree.makeDirectories(root / "tmp" / "bound")
        try makeOldFiles(tree, outside / "data", count: 3, bytes: 4_000)
        try tree.writeFile(
            root / "expire.yaml", contents: Array(#"cleaners: [{kind: expire, path: "tmp/*", age: 1s}]"#.utf8))
        let wrapper = Self.namespace(
            mounts: [(tree.absolutePath(outside / "data"), tree.absolutePath(root / "tmp" / "bound"))],
            state: state.rootPath)
        let daemon = try fixture.start(
            options: ["--config", tree.absolutePath(root / "expire.yaml"), "--clean"], wrapper: wrapper)
        _ = try daemon.syncStatus()
        // expire counts from the newest of atime, mtime and ctime: the old mtimes are not enough.
        try waitUntilUnchanged(
            tree,
            [root / "tmp" / "own" / "d1", root / "tmp" / "own" / "d2"] + (1...3).map { outside / "data" / "d\($0)" },
            forMoreThan: 1)
        for dryRun in [true, false] {
            let result = try fixture.cli.run(
                ["clean-now", "--socket", fixture.socketPath, "--json"] + (dryRun ? ["--dry-run"] : []))
            #expect(result.exitStatus == 0, "\(result)\n\(daemon.transcript)")
            let line = try CleanupLine(text: String(decoding: result.standardOutput, as: UTF8.self))
            #expect(line.dryRun == dryRun)
            expectKeptAsMountPoints(line, "expire", under: "tmp/bound")
            #expect(line.paths("expire").contains { $0.hasPrefix("tmp/own") }, "the cleaner ran: \(line.text)")
        }
        for index in 1...3 { #expect(try tree.exists(outside / "data" / "d\(index)"), "d\(index)") }
        #expect(try !tree.exists(root / "tmp" / "own" / "d1"))
        try fixture.stopCleanly()
    }

    @Test(
        "clean --yes --category caches with a cache directory bind-mounted from elsewhere keeps that side, saying why",
        .enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func cleanCachesNextToABindMount() throws {
        let setup = try CleanFixture()
        let tree = setup.tree
        let bound = CleanFixture.root / "Library" / "Caches" / "com.example.bound"
        try tree.makeDirectories(bound)
        try makeOldFiles(tree, outside / "data", count: 3, bytes: 6_000)
        let command =
            Self.namespace(
                mounts: [(tree.absolutePath(outside / "data"), tree.absolutePath(bound))], state: setup.state.rootPath)
            + [setup.fixture.cli.executablePath, "clean", setup.rootPath, "--category", "caches", "--json"]
        for dryRun in [true, false] {
            let result = try ProcessRunner.run(
                command[0], Array(command.dropFirst()) + [dryRun ? "--dry-run" : "--yes"])
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any], "\(result)")
            let removed = (report["removed"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
            let skipped = report["skipped"] as? [[String: Any]] ?? []
            #expect(removed.contains("Library/Caches/com.example.feed/images/a.jpg"), "\(result)")
            #expect(!removed.contains { $0.hasPrefix("Library/Caches/com.example.bound") }, "\(result)")
            for entry in skipped where (entry["path"] as? String)?.hasPrefix("Library/Caches/com.example.bound") == true
            {
                #expect((entry["reason"] as? String)?.contains("is a mount point") == true, "\(entry)")
            }
        }
        for index in 1...3 { #expect(try tree.exists(outside / "data" / "d\(index)"), "d\(index)") }
    }

    @Test(
        "a full audit-log disk: run --clean and clean --yes delete nothing, and say which log, ENOSPC, and the way out",
        .enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func fullAuditLog() throws {
        let setup = try CleanFixture()
        let state = setup.state.rootPath
        // A tiny tmpfs on the state directory, its audit log created, then filled to the last block.
        let filling = """
            mount -t tmpfs -o size=64k tmpfs '\(state)' && mkdir -p '\(state)/qw' && \
            (dd if=/dev/zero of='\(state)/fill' bs=4k 2>/dev/null; true) && \
            exec env STATE_DIRECTORY='\(state)/qw' "$0" "$@"
            """
        let wrapper = ["unshare", "-m", "--propagation", "private", "sh", "-c", filling]
        let clean = try ProcessRunner.run(
            wrapper[0],
            Array(wrapper.dropFirst()) + [setup.fixture.cli.executablePath, "clean", setup.rootPath, "--yes"]
                + ["--category", "caches"])
        #expect(clean.exitStatus == 1, "\(clean)")
        #expect(clean.outputText.contains("kept 1:\n"), "one removal tried, then it stops: \(clean.outputText)")
        // The log is in the root's own subdirectory of the state directory.
        #expect(clean.outputText.contains("error: cannot write the audit record to '\(state)/qw/root-"))
        #expect(clean.outputText.contains("/audit.jsonl': "), "\(clean.outputText)")
        for words in ["No space left on device (ENOSPC)", "nothing was deleted", "Free space", "STATE_DIRECTORY"] {
            #expect(clean.outputText.contains(words), "\(words): \(clean.outputText)")
        }
        #expect(try setup.exists("Library/Caches/com.example.feed/images/a.jpg"))

        let daemon = try setup.fixture.start(
            options: ["--quota", "Library/Caches/*=10kB", "--clean"], wrapper: wrapper)
        let line = try CleanupLine(try daemon.waitForEvent("cleanup"))
        let error = line.error("evict") ?? ""
        #expect(error.contains("'\(state)/qw/root-") && error.contains("(ENOSPC)"), "\(line.text)")
        #expect(error.contains("STATE_DIRECTORY") && line.paths("evict").isEmpty, "\(line.text)")
        // Each breached directory's trigger tries once and stops at its first refusal.
        let skipped = line.skipped("evict")
        #expect(Array(skipped.keys) == [error], "\(line.text)")
        let kept = skipped[error]
        #expect(kept.map { Set($0.examples).count == min($0.count, 5) } == true, "\(line.text)")
        #expect(error.components(separatedBy: "cannot write").count == 2, "said once: \(error)")
        try daemon.waitForStandardError(containing: "cleaner evict: cannot write the audit record")
        #expect(try setup.exists("Library/Caches/com.example.feed/images/a.jpg"))
        try setup.fixture.stopCleanly()
    }
}

extension CleanupLine {
    /// A cleaner's kept names by reason: how many, and the first few.
    func skipped(_ cleaner: String) -> [String: (count: Int, examples: [String])] {
        let cleaners = object["cleaners"] as? [[String: Any]] ?? []
        let groups = cleaners.first { $0["name"] as? String == cleaner }?["skipped"] as? [String: [String: Any]] ?? [:]
        return groups.mapValues { ($0["count"] as? Int ?? 0, $0["examples"] as? [String] ?? []) }
    }
}
