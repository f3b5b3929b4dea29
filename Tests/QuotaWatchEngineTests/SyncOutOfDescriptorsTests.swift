import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

/// A sync while the process has no descriptor free. Files written just before the crawl wait
/// for their writeback re-stat, which a sync does at once; each needs its directory opened,
/// and each refused open deferred the name, so the sync took the directory for lost and
/// removed it (a re-stat of it through its parent was refused too): its subtree was missing
/// from the totals, reported as exact, until descriptors were free. Seen first on a root of a
/// daemon serving several, whose subscribers of another root held every descriptor.
@Suite("A sync out of descriptors")
struct SyncOutOfDescriptorsTests {
    /// The fault tests' sample tree, crawled into a live tree on a kernel file system.
    private func withCrawledTree(_ body: (TempTree, inout LiveTree<KernelFileSystem>) throws -> Void) throws {
        let (temp, root, backend, fileSystem) = try CrawlFaultTests.kernelFileSystem(workers: 1)
        defer {
            backend.stop()
            root.close()
        }
        let (tree, report) = try fileSystem.crawlInitial(progress: nil)
        var live = LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: Array(".qw-sync-".utf8))
        try body(temp, &live)
    }

    @Test("every open refused (EMFILE) during a sync: no directory is lost, and the next sync is exact")
    func syncWithNoDescriptorFree() throws {
        try withCrawledTree { temp, live in
            #expect(!live.restats.foundFiles.isEmpty, "the test needs files waiting for their writeback re-stat")

            let faults = FaultPlan()
            faults.fail(.openat, with: .tooManyOpenFiles)
            faults.arm { live.settleForSync() }
            #expect(faults.calls(.openat).contains { $0.injected != nil }, "the sync tried to open a directory")
            for path in CrawlFaultTests.directories {
                #expect(
                    live.tree.directory(atComponents: path.components.map { $0[...] }) != nil,
                    "\(path) is still in the tree")
            }
            try CrawlFaultTests.expectMatchesDu(live.tree, temp)

            faults.clear()
            live.settleForSync()
            try CrawlFaultTests.expectMatchesDu(live.tree, temp)
        }
    }

    /// A file made while no descriptor is free cannot be stat'ed (its directory cannot be
    /// opened): the sync's totals lack it, so the sync must say its directory is degraded
    /// rather than call the totals exact. Once descriptors are free the next sync counts it.
    @Test("a file made while every open is refused: its directory is reported degraded, never exact and short")
    func fileMadeWithNoDescriptorFree() throws {
        try withCrawledTree { temp, live in
            let sub = try #require(live.tree.directory(atComponents: [Array("a".utf8)[...], Array("sub".utf8)[...]]))
            try temp.writeFile("a/sub/new", byteCount: 20_000)
            let watch = live.tree.watch(of: sub)
            let name = Array("new".utf8)
            live.apply(
                [
                    FileSystemChange(watch: watch, kind: .created, name: name),
                    FileSystemChange(watch: watch, kind: .closedAfterWrite, name: name),
                ], now: 1)

            let faults = FaultPlan()
            faults.fail(.openat, with: .tooManyOpenFiles)
            faults.arm { live.settleForSync() }
            #expect(live.tree.entry(named: name, in: sub) == nil, "the test needs the name left unstat'ed")
            // Every directory whose totals are not du's is reported degraded, lies in one that is,
            // or holds one (its total includes the degraded one's).
            let du = try DuOracle.measure(temp, directories: CrawlFaultTests.directories)
            let degraded = live.degradedDirectories
            for path in CrawlFaultTests.directories {
                let directory = try #require(live.tree.directory(atComponents: path.components.map { $0[...] }))
                let usage = live.tree.tally(of: directory).usage
                let expected = try #require(du.sizes[path])
                guard usage.allocated != UInt64(expected.allocated) || usage.apparent != UInt64(expected.apparent)
                else {
                    continue
                }
                #expect(
                    degraded.contains {
                        live.tree.isDescendant(directory, of: $0) || live.tree.isDescendant($0, of: directory)
                    },
                    "\(path): \(usage) against du's \(expected), called exact (degraded: \(degraded))")
            }
            #expect(degraded.contains(sub) && live.isShortOfDescriptors)

            faults.clear()
            live.settleForSync()
            #expect(live.degradedDirectories.isEmpty)
            try CrawlFaultTests.expectMatchesDu(live.tree, temp)
        }
    }
}
