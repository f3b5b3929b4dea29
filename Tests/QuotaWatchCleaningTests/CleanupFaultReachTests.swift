import Glibc
import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Testing

/// The runner's threads are JoinableThreads started under the submitting thread's fault plan:
/// a fault armed where a run is submitted reaches the cleaner's own thread, so a cleaning run
/// on a full state disk is tested through the runner, not only through the layer under it.
@Suite("Cleanup runner: a fault armed where a run is submitted reaches its cleaners")
struct CleanupFaultReachTests {
    @Test("fdatasync fails with ENOSPC on the cleaner's thread: nothing is deleted and the summary says why")
    func faultReachesTheCleaner() throws {
        let setup = try AuditLogFaultTests.Setup(names: ["one.bin", "two.bin"])
        let deleter = try Deleter(
            root: setup.root, dryRun: false, isProtected: { _ in false }, openWriter: { _ throws(Errno) in .noWriter })
        let log = try AuditLog(directory: setup.state)
        let candidates = try setup.items.map { item in
            let status = try setup.root.status(of: item.path)
            return CleanupCandidate(
                path: item.path, device: status.device, inode: status.inode, allocatedBytes: 8192,
                apparentBytes: 6000, modifiedNanoseconds: status.modifiedNanoseconds,
                changedNanoseconds: status.changedNanoseconds, rule: "r")
        }
        let collector = SummaryCollector()
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(dryRun: false), backend: AuditedDeleter(deleter: deleter, log: log),
            instance: "faults", prepare: { _ in CleanupInputs(level: .critical, candidates: candidates) },
            completion: { collector.receive($0) })
        runner.register(LeftoverCleaner())
        let faults = FaultPlan()
        faults.fail(.fdatasync, with: .noSpace)
        faults.arm { runner.submit(.manual("full disk")) }
        let summary = collector.waitFor(1)
        runner.stop()
        let report = try #require(summary.cleaners.first)
        #expect(report.removed.isEmpty)
        #expect(report.removed.isEmpty)
        #expect(report.error?.contains("(ENOSPC)") == true, "\(report)")
        for name in ["one.bin", "two.bin"] { #expect(try setup.exists(name), "\(name) was kept") }
        #expect(faults.calls(.fdatasync).count == 1, "the plan saw the cleaner's sync")
        #expect(faults.calls(.unlinkat).isEmpty)
    }
}
