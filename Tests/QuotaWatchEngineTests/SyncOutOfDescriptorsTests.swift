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
    @Test("every open refused (EMFILE) during a sync: no directory is lost, and the next sync is exact")
    func syncWithNoDescriptorFree() throws {
        let (temp, root, backend, fileSystem) = try CrawlFaultTests.kernelFileSystem(workers: 1)
        defer {
            backend.stop()
            root.close()
        }
        let (tree, report) = try fileSystem.crawlInitial(progress: nil)
        var live = LiveTree(tree: tree, crawl: report, fileSystem: fileSystem, markerPrefix: Array(".qw-sync-".utf8))
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
