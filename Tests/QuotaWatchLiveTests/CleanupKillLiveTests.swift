import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// The cleaners in the live daemon killed with SIGKILL mid-run: the audit log accounts for it.
extension CleanupLiveTests {
    /// The daemon, not a stand-in, is killed with SIGKILL at a random moment while it evicts.
    /// After each kill every file that is gone has an intent and every recorded removal is
    /// gone; the next start with --clean closes the intents the kill left open.
    @Test("the daemon killed at random moments of its cleanup runs: the audit log accounts for every deleted file")
    func killedDuringCleanup() throws {
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["QUOTAWATCH_KILL_RUNS"].flatMap(Int.init) ?? 6
        let seed = environment["QUOTAWATCH_KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let setup = try Setup()
        let tree = setup.fixture.tree
        try tree.makeDirectories(cache)
        var everyName: [String] = []
        var killedMidRun = 0
        for run in 0..<runs {
            // Over its quota before the daemon starts: the first crawl's breach starts an eviction.
            for index in 0..<40 {
                try tree.writeFile(cache / "r\(run)-\(index)", byteCount: 4_096)
                everyName.append("Caches/a/r\(run)-\(index)")
            }
            let daemon = try setup.start(["--quota", "Caches/*=40kB", "--clean"])
            if run == runs - 1 {
                // The last run ends before its kill, so the log is checked against deletions
                // that happened however loaded the machine: a kill at a random moment after the
                // start can come before the first removal in every run.
                try daemon.waitForEvent("cleanup")
            } else {
                // Every other run is killed from its first crawl's end rather than its start.
                if run % 2 == 1 { try daemon.waitForEvent("ready") }
                // The first removal waits for one reading of /proc (descriptors, threads,
                // mappings: up to a few hundred ms on a loaded machine), then the group's
                // intents are synced at once.
                usleep(UInt32.random(in: 0...300_000, using: &generator))
            }
            _ = try daemon.stop(SIGKILL)
            if daemon.events("cleanup").isEmpty { killedMidRun += 1 }

            let records = try setup.auditRecords()
            let intents = Set(
                records.filter { $0["record"] as? String == "intent" }.compactMap { $0["path"] as? String })
            let removed = records.filter {
                $0["record"] as? String == "outcome" && $0["result"] as? String == "removed"
            }
            .compactMap { $0["path"] as? String }
            for name in everyName where !(try tree.exists(TreePath("root/" + name))) {
                #expect(intents.contains(name), "seed \(seed), run \(run): \(name) is gone without an intent")
            }
            for name in removed {
                #expect(
                    !(try tree.exists(TreePath("root/" + name))),
                    "seed \(seed), run \(run): \(name) marked removed but present")
            }
        }
        // A start with --clean and nothing to clean resolves what the last kill left open.
        let last = try setup.start(["--quota", "Caches/*=1GB", "--clean"])
        _ = try last.syncStatus()
        let after = try setup.auditRecords()
        func key(_ record: [String: Any]) -> String { "\(record["run"] ?? "")#\(record["seq"] ?? "")" }
        let open = Set(after.filter { $0["record"] as? String == "intent" }.map(key))
            .subtracting(after.filter { $0["record"] as? String == "outcome" }.map(key))
        #expect(open.isEmpty, "seed \(seed): intents left open after a restart: \(open)")
        let gone = try everyName.filter { !(try tree.exists(TreePath("root/" + $0))) }.count
        print(
            "daemon kill -9: \(runs) runs, \(killedMidRun) before their cleanup ended (seed \(seed); "
                + "QUOTAWATCH_KILL_RUNS, QUOTAWATCH_KILL_SEED), \(gone) of \(everyName.count) files deleted")
        #expect(gone > 0, "seed \(seed): no run got as far as deleting")
        try setup.fixture.stopCleanly()
    }
}
