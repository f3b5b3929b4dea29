import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// README, "Limits and what inotify cannot see": the limits no other test shows, each with the
/// way it is corrected, against du.
@Suite("documented limits, shown against du")
struct DocumentedLimitTests {
    private let root = LiveFixture.root

    static let python = ProcessRunner.findExecutable("python3")
    /// The daemon re-stats a file its crawl finds again 3 s and 35 s later, and at every
    /// `status --sync` until then, when its ctime is within the last 35 s (the writeback
    /// window). These tests show what events alone give, so they start the daemon once the
    /// files are past it: a wait on the clock, for a window the daemon defines by the clock.
    /// (libfaketime could move the daemon's clock instead, but the `faketime` command forks,
    /// so its pid is not the daemon's, and preloaded directly it stops the daemon at start.)
    static func waitPastWritebackWindow(_ tree: TempTree, _ paths: [TreePath]) throws {
        var latest = 0
        for path in paths {
            var status = stat()
            try #require(lstat(tree.absolutePath(path), &status) == 0, "stat \(path)")
            latest = max(latest, status.st_ctim.tv_sec)
        }
        let until = Date(timeIntervalSince1970: TimeInterval(latest + 37))
        if until > Date() { Thread.sleep(until: until) }
    }

    /// Maps a file shared and writable (Python's mmap keeps a duplicate of the descriptor, so
    /// the file is closed, IN_CLOSE_WRITE, only when the mapping is), then on each line of
    /// input: stores into every page, then unmaps.
    static let mappingWriter = """
        import mmap, os, sys
        fd = os.open(sys.argv[1], os.O_RDWR)
        mapping = mmap.mmap(fd, int(sys.argv[2]))
        os.close(fd)
        print("mapped", flush=True)
        sys.stdin.readline()
        for offset in range(0, len(mapping), 4096):
            mapping[offset] = 1
        print("written", flush=True)
        sys.stdin.readline()
        mapping.close()
        print("closed", flush=True)
        sys.stdin.readline()
        """

    /// `m/sparse`, 1 MiB with no blocks, mapped by ``mappingWriter`` (256 KiB of it), once
    /// past the writeback window: what the daemon will see of it is what events tell.
    static func mapSparseFile(in tree: TempTree) throws -> LineDrivenProcess {
        let mapped = LiveFixture.root / "m" / "sparse"
        try tree.makeDirectory(LiveFixture.root / "m")
        try tree.makeSparseFile(mapped, size: 1 << 20)
        let writer = try LineDrivenProcess(
            try #require(python), ["-c", mappingWriter, tree.absolutePath(mapped), "\(256 << 10)"])
        try writer.expectLine("mapped")
        try waitPastWritebackWindow(tree, [mapped])
        return writer
    }

    private func size(of directory: TreePath, in status: LiveStatus) throws -> SubtreeSizes {
        let entry = try #require(status.report.directoriesByPath[directory.reportPath], "\(directory) not in status")
        return SubtreeSizes(allocated: entry.allocated, apparent: entry.apparent)
    }

    private func du(_ fixture: LiveFixture, _ directory: TreePath) throws -> SubtreeSizes {
        try #require(try ScanExpectation.measure(fixture.tree, root: root).du.sizes[directory], "du of \(directory)")
    }

    @Test(
        "writes through mmap are counted at the file's next event (its close), not before, not even at a sync",
        .enabled(if: python != nil, "needs python3 to write through a mapping"))
    func mappedWritesWaitForTheNextEvent() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let writer = try Self.mapSparseFile(in: tree)
        try fixture.start()
        let before = try fixture.expectLiveMatchesScan("mapped, nothing written yet", du: true)

        try writer.send(expecting: "written")
        let stale = try fixture.running.syncStatus()
        let written = try du(fixture, "m")
        #expect(try size(of: "m", in: stale) == size(of: "m", in: before), "the daemon saw the mapped writes")
        #expect(
            written.allocated >= (try size(of: "m", in: before)).allocated + (256 << 10),
            "du does not see 256 KiB more: \(written)")

        try writer.send(expecting: "closed")
        try fixture.expectLiveMatchesScan("after the mapping's close", du: true)
        try writer.send()
        try fixture.stopCleanly()
    }

    @Test(
        "a second name made, written through and removed while the daemon is stopped: the first name is stale until its next event"
    )
    func vanishedSecondName() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectory(root / "a")
        try tree.makeDirectory(root / "b")
        try tree.writeFile(root / "a" / "file", byteCount: 20_000)
        try Self.waitPastWritebackWindow(tree, [root / "a" / "file"])
        let daemon = try fixture.start()
        let before = try fixture.expectLiveMatchesScan("before", du: true)

        // The link's IN_ATTRIB goes to the inode alone, not to a's watch; b's events name a
        // name gone by the time they are read.
        try daemon.suspend()
        try tree.makeHardLink(root / "b" / "second", to: root / "a" / "file")
        try tree.appendToFile(root / "b" / "second", byteCount: 300_000)
        try tree.unlinkEntry(root / "b" / "second")
        try daemon.resume()
        guard DaemonBackend.requested == "inotify" else {
            // fanotify reports the link count change and the write by the inode's own handle,
            // so the limit is inotify's alone: the first name is right at once.
            try fixture.expectLiveMatchesScan("fanotify: the write through the vanished name", du: true)
            try fixture.stopCleanly()
            return
        }
        let stale = try daemon.syncStatus()
        #expect(try size(of: "a", in: stale) == size(of: "a", in: before), "the daemon saw the write")
        #expect(try du(fixture, "a").apparent == (try size(of: "a", in: before)).apparent + 300_000)

        try tree.appendToFile(root / "a" / "file", byteCount: 1)
        try fixture.expectLiveMatchesScan("after the first name's next event", du: true)
        try fixture.stopCleanly()
    }

    /// A file bind-mounted from another file system shows that file system's device and inode,
    /// but the tree matches names of one inode by the *directory's* device and the inode: a
    /// file of the directory's own file system with more than one link and that inode number
    /// is taken for the same file, and the two are counted once where du counts both. Two
    /// fresh tmpfs number their inodes alike, so the first file made in each collides.
    @Test(
        "a file bind-mounted over another is keyed by its directory's device: a colliding inode number is counted once",
        .enabled(if: MountNamespace.unavailableReason == nil, "\(MountNamespace.unavailableReason ?? "")"))
    func fileBindMountKeyedByDirectoryDevice() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectory(root / "t1")
        try fixture.tree.makeDirectory(LiveFixture.outside / "t2")
        let other = fixture.tree.absolutePath(LiveFixture.outside / "t2")
        let setup = """
            mount -t tmpfs -o size=8m none "$R/t1" && mount -t tmpfs -o size=8m none '\(other)' \
            && head -c 50000 /dev/zero > "$R/t1/f" && ln "$R/t1/f" "$R/t1/f2" \
            && head -c 9000 /dev/zero > '\(other)/x' && ln '\(other)/x' '\(other)/x2' \
            && : > "$R/t1/g" && mount --bind '\(other)/x' "$R/t1/g"
            """
        let daemon = try fixture.start(wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: setup))
        let inodes = try MountNamespace.run(daemon, #"stat -c '%d %i' "$R/t1/f" "$R/t1/g""#).outputText
            .split(separator: "\n").map { $0.split(separator: " ") }
        try #require(inodes.count == 2 && inodes[0][0] != inodes[1][0], "not two devices: \(inodes)")
        try #require(inodes[0][1] == inodes[1][1], "the two tmpfs numbered their first files apart: \(inodes)")

        let status = try daemon.syncStatus()
        let scan = try MountNamespace.scan(fixture, daemon)
        let differences = ReportComparison.differences(live: status.report, scan: scan)
        #expect(differences.isEmpty, "scan counts it as the daemon does:\n\(differences.joined(separator: "\n"))")
        let du = try MountNamespace.du(daemon, "t1")
        #expect(try size(of: "t1", in: status).apparent == du.apparent - 9000, "du \(du)")

        // Unmounted, g is the empty file of t1 again: the daemon follows the unmount.
        try MountNamespace.inside(daemon, #"umount "$R/t1/g""#)
        let problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "after the unmount:\n\(problems.joined(separator: "\n"))")
        try fixture.stopCleanly()
    }
}

/// A child that reads a line before each step and prints a line after it.
final class LineDrivenProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Reads one line (no timeout: a child that exits ends the read, and the line check fails).
    func expectLine(_ expected: String) throws {
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        let said = String(decoding: line, as: UTF8.self)
        try #require(said == expected, "the child said '\(said)', not '\(expected)'")
    }

    /// Lets the child take its next step, and waits for it to say `expected` when given.
    func send(expecting expected: String? = nil) throws {
        try input.fileHandleForWriting.write(contentsOf: Array("\n".utf8))
        if let expected { try expectLine(expected) }
    }
}
