import QuotaWatchTestSupport
import Testing

/// Bind mounts and mounts that come and go below the root, each in a private mount namespace
/// made for the test (see ``MountNamespace``), compared with du, find and a scan made there.
@Suite(
    "mounts below the root",
    .enabled(if: MountNamespace.unavailableReason == nil, "\(MountNamespace.unavailableReason ?? "")"))
struct MountLiveTests {
    private let root = LiveFixture.root

    /// `mount --bind a a/b`: du skips the cycle without a word, and so must scan and the daemon,
    /// at start and when such a mount appears later (and goes again).
    @Test("a bind mount of an ancestor below itself is a cycle, skipped as du skips it")
    func bindMountCycle() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "a" / "b")
        try fixture.tree.makeDirectories(root / "a" / "c")
        try fixture.tree.writeFile(root / "a" / "c" / "file", byteCount: 9_000)
        let daemon = try fixture.start(
            wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: #"mount --bind "$R/a" "$R/a/b""#))

        let scan = try MountNamespace.scan(fixture, daemon)
        #expect(!scan.directories.contains { $0.path.hasPrefix("a/b") }, "scan follows the cycle: \(scan.directories)")
        #expect(scan.directoriesByPath["."]?.allocated == (try MountNamespace.du(daemon, ".")).allocated)
        let status = try daemon.syncStatus()
        #expect(!status.report.directories.contains { $0.path.hasPrefix("a/b") }, "\(status.report.directories)")
        for path in [".", "a", "a/c"] {
            let du = try MountNamespace.du(daemon, path)
            let row = status.report.directoriesByPath[path]
            #expect(
                row?.allocated == du.allocated && row?.apparent == du.apparent,
                "\(path): \(String(describing: row)) du \(du)")
        }
        #expect(daemon.events("resynced").isEmpty, "the cycle forced a resync\n\(daemon.transcript)")

        // A cycle that appears while the daemon runs, and goes again.
        try MountNamespace.inside(daemon, #"mount --bind "$R/a" "$R/a/c""#)
        let covered = try daemon.syncStatus()
        #expect(covered.report.directoriesByPath["a/c"] == nil, "\(covered.report.directories)")
        #expect(covered.report.directoriesByPath["."]?.allocated == (try MountNamespace.du(daemon, ".")).allocated)
        try MountNamespace.inside(daemon, #"umount "$R/a/c""#)
        let back = try daemon.syncStatus()
        #expect(back.report.directoriesByPath["a/c"]?.allocated == (try MountNamespace.du(daemon, "a/c")).allocated)
        #expect(back.report.directoriesByPath["."]?.allocated == (try MountNamespace.du(daemon, ".")).allocated)
        #expect(daemon.events("resynced").isEmpty, "\(daemon.transcript)")
        try fixture.stopCleanly()
    }

    /// `mount --bind a a/b/c` with ROOT `a/b` (coreutils' `bind-mount-dir-cycle-v2`): `c` is
    /// ROOT's parent, so du goes into it, skips `c/b` (ROOT itself, a cycle) without a word and
    /// counts the rest; the daemon watches ROOT's parent for ROOT's removal, and that watch is
    /// `c`'s too. Compared with `du ROOT`'s own rows and with a scan: at ready, and after
    /// changes made in `c` (through either name) while the daemon watches.
    @Test("a bind mount of ROOT's parent below ROOT is counted as du counts it, and followed")
    func bindMountOfRootParent() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectory(root / "c")
        try fixture.tree.writeFile(root / "file", byteCount: 7_000)
        try fixture.tree.writeFile(LiveFixture.outside / "old", byteCount: 9_000)
        let daemon = try fixture.start(
            wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: #"mount --bind "$R/.." "$R/c""#))
        var problems = try MountNamespace.mismatchesWithDuOfRoot(fixture, daemon)
        #expect(problems.isEmpty, "at ready:\n\(problems.joined(separator: "\n"))")

        try MountNamespace.inside(
            daemon,
            #"head -c 20000 /dev/zero > "$R/c/new" && mkdir "$R/c/made" && head -c 5000 /dev/zero > "$R/c/made/f" "#
                + #"&& head -c 12000 /dev/zero > "$R/../outside/more" && rm "$R/c/outside/old""#)
        problems = try MountNamespace.mismatchesWithDuOfRoot(fixture, daemon)
        #expect(problems.isEmpty, "after changes in c:\n\(problems.joined(separator: "\n"))")
        let status = try daemon.syncStatus()
        #expect(status.report.directoriesByPath["c/made"] != nil, "c/made is missing: \(status.report.directories)")

        // ROOT's parent is still watched for ROOT's removal once the bind mount goes.
        try MountNamespace.inside(daemon, #"umount "$R/c""#)
        problems = try MountNamespace.mismatchesWithDuOfRoot(fixture, daemon)
        #expect(problems.isEmpty, "after the unmount:\n\(problems.joined(separator: "\n"))")
        try MountNamespace.inside(daemon, #"mv "$R" "$R.moved""#)
        _ = try daemon.waitForEvent("root_gone", timeout: .seconds(30))
    }

    /// One directory mounted at two places, no cycle: du counts both names, and so must the
    /// daemon, through changes made at either place, without re-listing anything while
    /// nothing changes.
    @Test("one directory at two places is counted at both, and kept at both")
    func directoryAtTwoPlaces() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "x" / "sub")
        try fixture.tree.makeDirectory(root / "y")
        try fixture.tree.writeFile(root / "x" / "file", byteCount: 6_000)
        try fixture.tree.writeFile(root / "x" / "sub" / "inner", byteCount: 3_000)
        let daemon = try fixture.start(
            wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: #"mount --bind "$R/x" "$R/y""#))
        var problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "at start:\n\(problems.joined(separator: "\n"))")
        let first = try daemon.syncStatus()
        let second = try daemon.syncStatus()
        #expect(
            second.engine.rescannedDirs == first.engine.rescannedDirs,
            "re-listed \(second.engine.rescannedDirs - first.engine.rescannedDirs) directories with nothing changed")

        // Changes at each place: files, a directory, a move within, a removal.
        try fixture.tree.writeFile(root / "x" / "new", byteCount: 20_000)
        try fixture.tree.makeDirectories(root / "x" / "made" / "deep")
        try fixture.tree.writeFile(root / "x" / "made" / "deep" / "f", byteCount: 7_000)
        try MountNamespace.inside(daemon, #"mv "$R/y/sub" "$R/y/made/sub2" && head -c 5000 /dev/zero > "$R/y/made/g""#)
        problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "after changes:\n\(problems.joined(separator: "\n"))")
        try fixture.tree.removeSubtree(root / "x" / "made" / "deep")
        try fixture.tree.unlinkEntry(root / "x" / "file")
        problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "after removals:\n\(problems.joined(separator: "\n"))")
        #expect(daemon.events("resynced").isEmpty, "\(daemon.transcript)")
        try fixture.stopCleanly()
    }

    /// A file with a second link outside the root, in a directory shown at two places: du
    /// counts it once at their common ancestor while it has two links, and at each place once
    /// the outside link goes (du remembers only inodes with several links). The daemon must
    /// follow the link count both ways, from the re-stat a change of the file brings.
    @Test("a file at two places is counted at each once its link outside goes, and once again after a new link")
    func linkCountChangesAtTwoPlaces() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "x")
        try fixture.tree.makeDirectory(root / "y")
        try fixture.tree.writeFile(root / "x" / "f", byteCount: 5)
        try fixture.tree.makeHardLink(LiveFixture.outside / "g", to: root / "x" / "f")
        let daemon = try fixture.start(
            wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: #"mount --bind "$R/x" "$R/y""#))
        var problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "at start:\n\(problems.joined(separator: "\n"))")

        try fixture.tree.unlinkEntry(LiveFixture.outside / "g")
        try MountNamespace.inside(daemon, #"touch "$R/x/f""#)
        problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "after the outside link went:\n\(problems.joined(separator: "\n"))")

        try fixture.tree.makeHardLink(LiveFixture.outside / "g", to: root / "x" / "f")
        try MountNamespace.inside(daemon, #"touch "$R/y/f""#)
        problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "after a new link outside:\n\(problems.joined(separator: "\n"))")
        try fixture.stopCleanly()
    }

    /// A tmpfs mounted over a watched directory hides what it held; unmounted, it shows it
    /// again. Neither raises an inotify event in the directory.
    @Test("a mount over a watched directory, and its unmount, are followed")
    func mountAndUnmountAfterStart() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "m" / "hidden")
        try fixture.tree.writeFile(root / "m" / "f", byteCount: 12_000)
        try fixture.tree.writeFile(root / "m" / "hidden" / "g", byteCount: 5_000)
        try fixture.tree.makeDirectory(root / "other")
        let daemon = try fixture.start(wrapper: MountNamespace.wrapper(root: fixture.rootPath))
        let before = try daemon.syncStatus()
        try MountNamespace.inside(daemon, #"mount -t tmpfs -o size=8m none "$R/m" && echo x > "$R/m/t""#)
        var problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "mounted:\n\(problems.joined(separator: "\n"))")
        // In two steps: a directory made and filled at once on tmpfs can keep a stale size of
        // its own, a defect of its own (issue 15, item 8) that this test is not about.
        try MountNamespace.inside(daemon, #"mkdir "$R/m/d""#)
        _ = try daemon.syncStatus()
        try MountNamespace.inside(daemon, #"head -c 30000 /dev/zero > "$R/m/d/big""#)
        problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "written in the mount:\n\(problems.joined(separator: "\n"))")
        try MountNamespace.inside(daemon, #"umount "$R/m""#)
        problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "unmounted:\n\(problems.joined(separator: "\n"))")
        let after = try daemon.syncStatus()
        #expect(after.report.directoriesByPath["m"] == before.report.directoriesByPath["m"])
        // Only the place was listed again, not the tree: m and m/hidden, twice.
        #expect(after.engine.rescannedDirs - before.engine.rescannedDirs <= 6, "\(after.engine)")
        #expect(daemon.events("resynced").isEmpty, "\(daemon.transcript)")
        try fixture.stopCleanly()
    }

    /// With --one-file-system a mount that appears is left out, as du -x leaves it out.
    @Test("--one-file-system leaves out a file system mounted after start")
    func oneFileSystemLeavesOutNewMounts() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "m")
        try fixture.tree.writeFile(root / "m" / "f", byteCount: 12_000)
        let daemon = try fixture.start(
            options: ["--one-file-system"], wrapper: MountNamespace.wrapper(root: fixture.rootPath))
        try MountNamespace.inside(
            daemon, #"mount -t tmpfs -o size=8m none "$R/m" && head -c 9000 /dev/zero > "$R/m/t""#)
        let problems = try MountNamespace.mismatches(fixture, daemon, oneFileSystem: true, ignoring: ["m"])
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(try daemon.syncStatus().report.directoriesByPath["m"] == nil)
        try fixture.stopCleanly()
    }

    /// Once something changed inside a file system mounted below the root, the daemon must not
    /// hold it busy: `umount` succeeds while it runs, and the tally shows what it uncovers.
    @Test("the daemon never keeps a mount below the root busy")
    func unmountIsNeverBlocked() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "t")
        try fixture.tree.writeFile(root / "t" / "under", byteCount: 40_000)
        let daemon = try fixture.start(
            wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: #"mount -t tmpfs -o size=8m none "$R/t""#))
        for round in 0..<3 {
            try MountNamespace.inside(
                daemon,
                #"mkdir -p "$R/t/a/b" && head -c 20000 /dev/zero > "$R/t/a/b/f\#(round)" && echo y >> "$R/t/a/g""#)
            _ = try daemon.syncStatus()
        }
        var problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "written:\n\(problems.joined(separator: "\n"))")
        let unmount = try MountNamespace.run(daemon, #"umount "$R/t""#)
        #expect(unmount.exitStatus == 0, "umount failed while the daemon runs\n\(unmount)")
        problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "unmounted:\n\(problems.joined(separator: "\n"))")
        try fixture.stopCleanly()
    }

    /// README, Limits: a mount over ROOT itself after start is not followed; the daemon keeps
    /// counting the directory it opened.
    @Test("a mount over ROOT itself after start is not followed (a documented limit)")
    func mountOverRootIsNotFollowed() throws {
        let fixture = try LiveFixture()
        try fixture.tree.writeFile(root / "kept", byteCount: 30_000)
        let daemon = try fixture.start(wrapper: MountNamespace.wrapper(root: fixture.rootPath))
        let before = try daemon.syncStatus()
        try MountNamespace.inside(
            daemon, #"mount -t tmpfs -o size=8m none "$R" && mkdir "$R/new" && head -c 9000 /dev/zero > "$R/new/f""#)
        let after = try daemon.syncStatus()
        #expect(after.report.directories == before.report.directories, "\(after.report.directories)")
        let scan = try MountNamespace.scan(fixture, daemon)
        #expect(scan.directoriesByPath["new"] != nil, "the tmpfs is not what ROOT shows: \(scan.directories)")
        try fixture.stopCleanly()
    }

    /// README, Limits: a bind mount of a directory removed since shows one that cannot be
    /// listed; scan and du warn and count its own inode, and the daemon counts the same.
    @Test("a bind mount of a removed directory is counted as scan and du count it")
    func bindMountOfRemovedDirectory() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "x" / "sub")
        try fixture.tree.makeDirectory(root / "y")
        try fixture.tree.writeFile(root / "x" / "sub" / "f", byteCount: 8_000)
        let daemon = try fixture.start(
            wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: #"mount --bind "$R/x" "$R/y""#))
        try fixture.tree.removeSubtree(root / "x")
        let status = try daemon.syncStatus()
        let warned = try ProcessRunner.run(
            "nsenter", ["-t", "\(daemon.processID)", "-m", fixture.cli.executablePath, "scan", fixture.rootPath])
        #expect(warned.exitStatus == 1 && warned.errorText.contains("/y"), "\(warned)")
        let scan = try MountNamespace.scan(fixture, daemon, warnings: true)
        let differences = ReportComparison.differences(live: status.report, scan: scan)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        #expect(status.report.directoriesByPath["y"]?.allocated == (try MountNamespace.du(daemon, "y")).allocated)
        try fixture.stopCleanly()
    }

    /// The same, with the daemon caught up between emptying the directory and removing it:
    /// rmdir leaves the bind mount with size 0 and no event on its watch (found by the
    /// randomized live test, seed 18: `y` kept its 4 096 apparent bytes).
    @Test("a bind mount of a directory emptied, then removed, is stat'ed again")
    func bindMountOfDirectoryRemovedLater() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "x" / "sub")
        try fixture.tree.makeDirectory(root / "y")
        try fixture.tree.writeFile(root / "x" / "sub" / "f", byteCount: 8_000)
        let daemon = try fixture.start(
            wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: #"mount --bind "$R/x" "$R/y""#))
        try fixture.tree.removeSubtree(root / "x" / "sub")
        _ = try daemon.syncStatus()
        try fixture.tree.removeSubtree(root / "x")
        let status = try daemon.syncStatus()
        let scan = try MountNamespace.scan(fixture, daemon, warnings: true)
        let differences = ReportComparison.differences(live: status.report, scan: scan)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        #expect(status.report.directoriesByPath["y"]?.apparent == (try MountNamespace.du(daemon, "y")).apparent)
        try fixture.stopCleanly()
    }
}
