import Foundation
import QuotaWatchTestSupport
import Testing

/// The triggers that come from neither a breach nor a request: a new app version at start,
/// and the periodic fallback.
@Suite("cleanup triggers in the live daemon")
struct CleanupTriggerLiveTests {
    private let root = LiveFixture.root

    @Test("a new app version runs every cleaner once and is remembered; the same version does not")
    func appVersion() throws {
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-cleanup-state")
        let tree = fixture.tree
        try tree.writeFile(root / "config.yaml", contents: Array("app_version: '2.0'\n".utf8))
        let options = ["--config", tree.absolutePath(root / "config.yaml"), "--clean"]
        let wrapper = ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"]

        let first = try fixture.start(options: options, wrapper: wrapper)
        let run = try CleanupLine(try first.waitForEvent("cleanup"))
        #expect(run.trigger == "app_version" && run.text.contains(#""new":"2.0","old":null"#), "\(run.text)")
        #expect(run.cleanerNames == ["leftovers", "evict"])
        try fixture.stopCleanly()
        let remembered = try FileManager.default.subpathsOfDirectory(atPath: state.rootPath)
            .filter { $0.hasPrefix("root-") && $0.hasSuffix("/app-version") }  // not a sibling root's
        #expect(remembered.count == 1, "\(remembered)")
        if let path = remembered.first {
            let text = try String(contentsOfFile: state.rootPath + "/" + path, encoding: .utf8)
            #expect(text == "2.0\n")
        }

        let second = try fixture.start(options: options, wrapper: wrapper)
        // A request is answered only after the first turn, where the app version run would start.
        _ = try second.syncStatus()
        let manual = try fixture.cli.run(["clean-now", "--socket", fixture.socketPath, "--json"])
        #expect(try CleanupLine(text: String(decoding: manual.standardOutput, as: UTF8.self)).trigger == "manual")
        // Summaries are written in the order the runs end: an app_version run would come first.
        try second.waitForEvent("cleanup", description: "of the manual run") { $0.text.contains(#""kind":"manual""#) }
        #expect(second.events("cleanup", where: { $0.text.contains("app_version") }).isEmpty, "\(second.transcript)")
        try fixture.stopCleanly()
    }

    @Test("the periodic fallback runs on its period at the level in force")
    func periodic() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.writeFile(root / "config.yaml", contents: Array("periodic: {normal: 1s}\n".utf8))
        let daemon = try fixture.start(options: ["--config", tree.absolutePath(root / "config.yaml")])
        let run = try CleanupLine(try daemon.waitForEvent("cleanup", timeout: .seconds(30)))
        #expect(run.trigger == "periodic" && run.text.contains(#""level":"normal""#) && run.dryRun, "\(run.text)")
        try daemon.waitForEvent("cleanup", count: 2, timeout: .seconds(30))
        try fixture.stopCleanly()
    }

    @Test(
        "a level change runs every cleaner at the new level",
        .enabled(if: DiskLevelLiveTests.unavailableReason == nil, "needs 'unshare -m' and permission to mount a tmpfs"))
    func levelChange() throws {
        let fixture = try LiveFixture()
        let wrapper = [
            "unshare", "-m", "sh", "-c",
            "mount -t tmpfs -o size=64m none '\(fixture.rootPath)' && exec \"$0\" \"$@\"",
        ]
        let daemon = try fixture.start(options: ["--level-free", "50%,25%"], wrapper: wrapper)
        _ = try daemon.syncStatus()
        // Another process in the daemon's namespace fills the tmpfs to under 25 % free.
        let fill = try ProcessRunner.run(
            "nsenter",
            [
                "-t", "\(daemon.processID)", "-m", "sh", "-c", #"head -c 50000000 /dev/zero > "$1/fill""#, "sh",
                daemon.root,
            ])
        #expect(fill.exitStatus == 0, "\(fill)")
        // The level may step through warning on its way to critical: the first change is served first.
        let level = try daemon.waitForEvent("level")
        let line = try daemon.waitForEvent("cleanup", description: "for the level change") {
            $0.text.contains(#""kind":"level""#)
        }
        #expect(line.text.contains(#""to":"\#(level.to ?? "?")""#), "\(level)\n\(line)")
        #expect(try CleanupLine(line).dryRun, "no --clean: the run only reports")
        try fixture.stopCleanly()
    }
}
