import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

/// The crawl under injected faults: a name that vanishes between its listing and its stat,
/// a process out of descriptors, a directory that may not be read when it is listed again.
/// Each time the tally stays exact: du's for the tree as it then is.
@Suite("Crawl and live tree under injected faults")
struct CrawlFaultTests {
    /// Four directories with files; `a/victim` is the name the faults aim at.
    static func makeTree() throws -> TempTree {
        let temp = try TempTree()
        try temp.makeDirectories("a/sub/deeper")
        try temp.makeDirectories("b")
        try temp.writeFile("a/keep", byteCount: 3000)
        try temp.writeFile("a/victim", byteCount: 9000)
        try temp.writeFile("a/sub/inner", byteCount: 12000)
        try temp.writeFile("a/sub/deeper/leaf", byteCount: 5000)
        try temp.writeFile("b/other", byteCount: 7000)
        return temp
    }

    static let directories: [TreePath] = [.root, "a", "a/sub", "a/sub/deeper", "b"]

    /// The sample tree under a kernel file system with an inotify backend; the caller stops the
    /// backend and closes the root.
    static func kernelFileSystem(
        workers: Int
    ) throws -> (
        temp: TempTree, root: FileDescriptor, backend: InotifyBackend, fileSystem: KernelFileSystem
    ) {
        let temp = try makeTree()
        let (root, _) = try TreeScanner().openRoot(temp.absoluteBytes(.root))
        let backend = try InotifyBackend(inotify: InotifyDescriptor())
        return (
            temp, root, backend, KernelFileSystem(root: root, backend: backend, options: CrawlOptions(workers: workers))
        )
    }

    /// Every directory's totals against du's.
    static func expectMatchesDu(
        _ tree: TallyTree, _ temp: TempTree, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let du = try DuOracle.measure(temp, directories: directories)
        for path in directories {
            let directory = try #require(
                tree.directory(atComponents: path.components.map { $0[...] }), sourceLocation: sourceLocation)
            let usage = tree.tally(of: directory).usage
            let expected = try #require(du.sizes[path])
            #expect(
                usage.allocated == UInt64(expected.allocated) && usage.apparent == UInt64(expected.apparent),
                "\(path): tree \(usage), du \(expected)", sourceLocation: sourceLocation)
        }
    }

    /// The listing names `a/victim`, its stat says it is gone (ENOENT) or its handle went stale
    /// (ESTALE, NFS): it is not counted, and once it really is gone every total is du's. A stale
    /// handle is also reported, since it may be there after all.
    @Test(
        "a name gone between its listing and its stat is not counted; the totals stay du's",
        arguments: [(ENOENT, false), (ESTALE, true)], [1, 3])
    func vanishesBetweenListingAndStat(fault: (code: CInt, warns: Bool), workers: Int) throws {
        let temp = try Self.makeTree()
        let scanner = TreeScanner(options: CrawlOptions(workers: workers))
        let (root, rootStatus) = try scanner.openRoot(temp.absoluteBytes(.root))
        defer { root.close() }
        var tree = TallyTree(root: rootStatus)
        let faults = FaultPlan()
        faults.fail(.fstatat, with: Errno(rawValue: fault.code), path: "victim")
        let (warnings, _) = faults.arm { scanner.crawl(root, into: &tree, at: tree.root) }
        #expect(
            faults.calls(.fstatat).contains { $0.path == Array("victim".utf8) && $0.injected != nil },
            "the crawl's stat of the name was failed, on whichever worker listed it")
        #expect(tree.fileCount == 4)
        let reported = warnings.filter { $0.kind == .unstatableEntry }.map(\.path)
        #expect(reported == (fault.warns ? [Array("a/victim".utf8)] : []))
        try FileManager.default.removeItem(atPath: temp.absolutePath("a/victim"))
        try Self.expectMatchesDu(tree, temp)
    }

    /// EMFILE on the directory cache's open: the cache gives its descriptors back and tries
    /// once more, so the answer is still the right directory; out of descriptors for good, the
    /// caller is told so (and the live tree defers the name).
    @Test("EMFILE in the directory handles: the cache is given back, then the open is retried")
    func directoryHandlesOutOfDescriptors() throws {
        let temp = try Self.makeTree()
        let (root, rootStatus) = try TreeScanner().openRoot(temp.absoluteBytes(.root))
        defer { root.close() }
        var tree = TallyTree(root: rootStatus)
        _ = TreeScanner().crawl(root, into: &tree, at: tree.root)
        let a = try #require(tree.directory(atComponents: [Array("a".utf8)[...]]))
        let sub = try #require(tree.directory(atComponents: [Array("a".utf8)[...], Array("sub".utf8)[...]]))
        var handles = DirectoryHandles(root: root, capacity: 8)
        _ = try handles.withDescriptor(for: a, in: tree) { $0 }
        let faults = FaultPlan()
        faults.fail(.openat, with: .tooManyOpenFiles, times: 1, path: "sub")
        let inode = try faults.arm { () throws(DirectoryHandles.OpenFailure) in
            try handles.withDescriptor(for: sub, in: tree) { try? $0.status().inode }
        }
        #expect(inode == tree.inode(of: sub))
        #expect(faults.calls(.openat).map(\.injected) == [.tooManyOpenFiles, nil])
        #expect(faults.calls(.close).count >= 1, "the cached descriptor of 'a' was closed to make room")

        faults.fail(.openat, with: .tooManyOpenFiles)
        var fileSystem = KernelFileSystem(
            root: root, backend: try InotifyBackend(inotify: InotifyDescriptor()), options: CrawlOptions(workers: 1))
        defer { fileSystem.backend.stop() }
        let deeper = try #require(
            tree.directory(atComponents: ["a", "sub", "deeper"].map { Array($0.utf8)[...] }))
        let lookup = faults.arm { fileSystem.status(of: Array("leaf".utf8), in: deeper, tree: tree) }
        #expect(lookup == .outOfDescriptors, "deferred and retried, never 'missing' nor lost")
    }

    /// The live tree's chain of degradations: EMFILE while crawling `a/sub` leaves it counted
    /// alone and polled; the poll's re-listing meets EACCES, so it counts as unreadable, as du
    /// counts it; once readable it is listed again, and every total is du's.
    @Test("EMFILE during the crawl, then EACCES on the re-listing, then readable again: exact")
    func shortOfDescriptorsThenUnreadableThenListed() throws {
        let (temp, root, backend, fileSystem) = try Self.kernelFileSystem(workers: 3)
        defer {
            backend.stop()
            root.close()
        }
        let faults = FaultPlan()
        faults.fail(.openat, with: .tooManyOpenFiles, path: "sub")
        let (tree, report) = try faults.arm { () throws(RootError) in try fileSystem.crawlInitial(progress: nil) }
        let sub = try #require(tree.directory(atComponents: [Array("a".utf8)[...], Array("sub".utf8)[...]]))
        #expect(report.shortOfDescriptors == [sub])
        var live = LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: Array(".qw-sync-".utf8))
        #expect(live.isShortOfDescriptors && live.degradedDirectories == [sub])
        #expect(live.tree.tally(of: sub).files == 0, "counted alone until it can be listed")

        faults.clear()
        faults.fail(.openat, with: .permissionDenied, path: "sub")
        faults.arm { live.pollDegraded() }
        #expect(live.unreadable.contains(sub))
        #expect(!live.isShortOfDescriptors && !live.hasUnwatchedDirectories)
        #expect(live.tree.tally(of: sub).files == 0)

        faults.clear()
        faults.arm { live.checkReadability(of: sub) }
        #expect(!live.unreadable.contains(sub))
        #expect(live.tree.tally(of: sub).files == 2)
        try Self.expectMatchesDu(live.tree, temp)
    }

    /// inotify needs read permission: a chmod 000 between a directory's open and its watch
    /// refuses the watch, while the listing through the open descriptor still succeeds. The
    /// directory was counted, but would hear nothing of what is made in it later, for good
    /// (a random sweep, daemon unprivileged, lost a new subdirectory so). It is listed again at
    /// the next flush, and watched then.
    @Test("a watch refused (EACCES) during a listing is added by listing the directory again")
    func refusedWatchIsRetried() throws {
        let (temp, root, backend, fileSystem) = try Self.kernelFileSystem(workers: 1)
        defer {
            backend.stop()
            root.close()
        }
        let faults = FaultPlan()
        // The root's watch is added; the next directory's is refused.
        faults.fail(.inotifyAddWatch, with: .permissionDenied, times: 1, skipping: 1)
        let (tree, report) = try faults.arm { () throws(RootError) in try fileSystem.crawlInitial(progress: nil) }
        #expect(faults.calls(.inotifyAddWatch).filter { $0.injected != nil }.count == 1)
        var live = LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: Array(".qw-sync-".utf8))
        #expect(live.watchCount == Self.directories.count - 1, "one directory was listed without a watch")
        try Self.expectMatchesDu(live.tree, temp)

        #expect(live.hasPendingWork, "the missing watch is work for the next flush")
        live.flush()
        #expect(live.watchCount == Self.directories.count, "every directory has its watch")
        for path in Self.directories {
            let directory = try #require(live.tree.directory(atComponents: path.components.map { $0[...] }))
            #expect(live.tree.watch(of: directory) >= 0, "\(path) is watched")
        }
        #expect(!live.hasUnwatchedDirectories && !live.hasPendingWork)
        try Self.expectMatchesDu(live.tree, temp)
    }

    /// A name's stat is refused (EACCES) because a directory above it had no search permission
    /// for a moment (chmod 000 and back, run by another user than the daemon's): the directory
    /// holding the name is marked unreadable, though it never was. When the ancestor's
    /// attribute change is seen, or at the latest at a sync, the marked directory is looked at
    /// again and listed. Before, it stayed empty for good (a random sweep, daemon unprivileged,
    /// lost a new file so).
    @Test(
        "a stat refused by an ancestor without search permission for a moment: the directory is listed again",
        arguments: [false, true])
    func statRefusedByAnAncestorIsRecovered(atSync: Bool) throws {
        let (temp, root, backend, fileSystem) = try Self.kernelFileSystem(workers: 1)
        defer {
            backend.stop()
            root.close()
        }
        let (tree, report) = try fileSystem.crawlInitial(progress: nil)
        var live = LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: Array(".qw-sync-".utf8))
        let a = try #require(live.tree.directory(atComponents: [Array("a".utf8)[...]]))
        let deeper = try #require(
            live.tree.directory(atComponents: ["a", "sub", "deeper"].map { Array($0.utf8)[...] }))
        try temp.writeFile("a/sub/deeper/new", byteCount: 6000)

        let faults = FaultPlan()
        faults.fail(.fstatat, with: .permissionDenied, times: 1, path: "new")
        faults.arm {
            live.pendingNames.insert(PendingName(directory: deeper, name: Array("new".utf8)))
            live.flush()
        }
        #expect(faults.calls(.fstatat).contains { $0.injected == .permissionDenied }, "the stat was refused")
        #expect(live.unreadable.contains(deeper), "the refusal marks the directory that holds the name")
        #expect(live.tree.tally(of: deeper).files == 0)

        if atSync {
            live.settleForSync()
        } else {
            // The chmod back on `a` comes as an attribute event for `a`.
            live.checkReadability(of: a)
            live.flush()
        }
        #expect(!live.unreadable.contains(deeper))
        #expect(live.tree.tally(of: deeper).files == 2)
        try Self.expectMatchesDu(live.tree, temp)
    }
}
