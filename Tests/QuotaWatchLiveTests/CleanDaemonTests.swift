import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `quotawatch clean` when a daemon serves ROOT: the page comes from the daemon's live tree,
/// and the daemon deletes on its cleanup runner, into its own audit log.
@Suite("clean through the daemon")
struct CleanDaemonTests {
    private func start(_ setup: CleanFixture, _ options: [String]) throws -> Daemon {
        try setup.fixture.start(options: options, wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(setup.state.rootPath)"])
    }

    private func engine(_ page: [String: Any]) -> [String: Any] { page["engine"] as? [String: Any] ?? [:] }

    private func number(_ value: Any?) -> UInt64? { (value as? NSNumber)?.uint64Value }

    @Test(
        "the page comes from the daemon without a rescan, the daemon deletes what --dry-run listed, and its tallies still match du"
    )
    func pageAndDeletionByTheDaemon() throws {
        let setup = try CleanFixture()
        // The fixture's downloads are years old: with --clean the first run would remove them
        // as leftovers at once. This test is about the page and what it selects, so none is one.
        let daemon = try start(setup, ["--clean", "--leftover-after", "3650d"])
        let socket = ["--socket", daemon.socketPath]
        let before = try daemon.syncStatus()

        let page = try setup.cleanJSON(socket)
        #expect(page["source"] as? String == "daemon")
        let again = try setup.cleanJSON(socket)
        // Each listing is one request the engine answered, and nothing was listed again.
        #expect(
            number(engine(again)["requests"]) == number(engine(page)["requests"]).map { $0 + 1 }, "\(engine(again))")
        #expect(number(engine(again)["rescanned_dirs"]) == before.engine.rescannedDirs)
        // The daemon's page is the crawl's page, and its sizes are du's.
        let crawled = try setup.cleanJSON([])
        #expect(crawled["source"] as? String == "crawl")
        for (name, category) in categories(page) {
            let paths = itemPaths(category)
            #expect(Set(paths) == Set(itemPaths(categories(crawled)[name])), "\(name)")
            #expect(number(category["allocated"]) == (try setup.du(paths)), "\(name)")
        }

        // Ages too: the video was last written in 2020.
        let video = (categories(page)["user-files"]?["items"] as? [[String: Any]] ?? []).first {
            $0["path"] as? String == "Documents/Trip.mov"
        }
        #expect(number(video?["age_seconds"]).map { $0 > 86_400 * 365 } == true, "\(String(describing: video))")

        let open = "tmp/CFNetworkDownload_Open99.tmp"
        let descriptor = try setup.tree.openForAppending(CleanFixture.root.appending(TreePath(open)))
        defer { close(descriptor) }
        let selection = socket + ["--category", "caches", "--category", "leftovers", "--kind", "video"]
        let dry = try setup.cleanJSON(selection + ["--dry-run"])
        let listed = removedPaths(dry)
        #expect(dry["source"] as? String == "daemon" && dry["dry_run"] as? Bool == true)
        #expect(listed.contains("Documents/Trip.mov") && !listed.contains(open), "\(listed)")
        for path in listed { #expect(try setup.exists(path), "the dry run removed \(path)") }

        let real = try setup.cleanJSON(selection + ["--yes"])
        #expect(removedPaths(real) == listed, "\(real)")
        #expect(skippedReasons(real)[open]?.contains("open for writing") == true, "\(real)")
        for path in CleanFixture.expected.keys {
            #expect(try setup.exists(path) == !listed.contains(path), "\(path)")
        }
        for path in CleanFixture.untouchable { #expect(try setup.exists(path), "\(path)") }

        // Done by the daemon: its cleanup event and its audit log, under its run.
        let event = try CleanupLine(
            try daemon.waitForEvent("cleanup", description: "of the selection") { line in
                (try? CleanupLine(line))?.dryRun == false
            })
        #expect(event.cleanerNames == ["clean"] && event.paths("clean") == listed, "\(event.text)")
        let intents = try setup.auditRecords().filter { $0["record"] as? String == "intent" }
        #expect(intents.compactMap { $0["path"] as? String } == listed)
        #expect(intents.allSatisfy { ($0["run"] as? String)?.hasPrefix("\(daemon.processID)-") == true }, "\(intents)")
        #expect(intents.allSatisfy { $0["cleaner"] as? String == "clean" })

        let after = try setup.fixture.expectLiveMatchesScan("after clean --yes", du: true)
        #expect(after.engine.rescannedDirs == before.engine.rescannedDirs, "\(after.engine)")
        try setup.fixture.stopCleanly()
    }

    @Test("a daemon started without --clean deletes nothing: --yes is refused with the way out, --dry-run works")
    func daemonWithoutClean() throws {
        let setup = try CleanFixture()
        let daemon = try start(setup, [])
        let socket = ["--socket", daemon.socketPath]
        let refused = try setup.clean(socket + ["--yes", "--category", "caches"])
        #expect(refused.exitStatus == 1 && refused.errorText.contains("restart it with --clean"), "\(refused)")
        let dry = try setup.cleanJSON(socket + ["--dry-run", "--category", "caches"])
        #expect(removedPaths(dry).count == 4 && dry["source"] as? String == "daemon", "\(dry)")
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "\(path)") }
        #expect(try setup.auditRecords().isEmpty)
        // A socket whose daemon watches another root is refused: deleting would happen there.
        let elsewhere = try ProcessRunner.run(
            setup.fixture.cli.executablePath,
            ["clean", setup.tree.absolutePath(LiveFixture.outside), "--socket", daemon.socketPath, "--list"])
        #expect(
            elsewhere.exitStatus == 1
                && elsewhere.errorText.contains("not \(setup.tree.absolutePath(LiveFixture.outside))"), "\(elsewhere)")
        // Your own files stay protected through the daemon as well.
        let user = try setup.clean(socket + ["--yes", "--category", "user-files"])
        #expect(user.exitStatus == 64, "\(user)")
        try setup.fixture.stopCleanly()
    }
}
