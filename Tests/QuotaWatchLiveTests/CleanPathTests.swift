import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `quotawatch clean ROOT --path P`: any file or directory below ROOT, category or not, goes
/// whole, through the same deleter and audit log; a path that leads nowhere, or selects
/// nothing, is an error naming it.
@Suite("clean --path on any path")
struct CleanPathTests {
    static let support = "Library/Application Support"

    @Test("a directory outside every category: --dry-run lists exactly what --yes then removes, with the audit log")
    func directoryOutsideTheCategories() throws {
        let setup = try CleanFixture()
        let blob = CleanFixture.root.appending(TreePath(Self.support + "/blobs/x.bin"))
        try setup.tree.makeDirectories(blob.parent!)
        try setup.tree.writeFile(blob, byteCount: 5_000)
        let expected = [
            Self.support + "/db.sqlite", Self.support + "/blobs/x.bin", Self.support + "/blobs", Self.support,
        ]

        let dry = try setup.clean(["--dry-run", "--path", Self.support, "--json"])
        #expect(dry.exitStatus == 0, "\(dry)")
        let dryReport = try #require(try JSONSerialization.jsonObject(with: Data(dry.standardOutput)) as? [String: Any])
        #expect(Set(removedPaths(dryReport)) == Set(expected), "\(dryReport)")
        #expect(try setup.exists(Self.support + "/db.sqlite"), "the dry run removed it")
        #expect(try setup.auditRecords().isEmpty, "a dry run records nothing")

        let real = try setup.cleanJSON(["--yes", "--path", Self.support])
        #expect(removedPaths(real) == removedPaths(dryReport), "the dry run was not exact")
        #expect(!(try setup.exists(Self.support)))
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "\(path)") }
        let intents = try setup.auditRecords().filter { $0["record"] as? String == "intent" }
        #expect(Set(intents.compactMap { $0["path"] as? String }) == Set(expected), "\(intents)")
        #expect(intents.allSatisfy { $0["rule"] as? String == "path" && $0["cleaner"] as? String == "clean" })
    }

    @Test("a file outside every category is removed, and the text says so")
    func fileOutsideTheCategories() throws {
        let setup = try CleanFixture()
        let cookies = "Library/Cookies/Cookies.binarycookies"
        let result = try setup.clean(["--yes", "--path", cookies])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.outputText.contains("removed 1 file(s)"), "\(result.outputText)")
        #expect(!(try setup.exists(cookies)))
    }

    @Test("a file of the page named by --path goes as that file: its category stays its audit rule")
    func fileOfThePageKeepsItsCategory() throws {
        let setup = try CleanFixture()
        let report = try setup.cleanJSON(["--yes", "--path", "Documents/Trip.mov", "--path", "Library/Cookies"])
        #expect(
            Set(removedPaths(report)) == [
                "Documents/Trip.mov", "Library/Cookies/Cookies.binarycookies", "Library/Cookies",
            ])
        let rules = Dictionary(
            try setup.auditRecords().filter { $0["record"] as? String == "intent" }.map {
                ($0["path"] as? String ?? "", $0["rule"] as? String ?? "")
            }, uniquingKeysWith: { first, _ in first })
        #expect(rules["Documents/Trip.mov"] == "user-files:video", "\(rules)")
        #expect(rules["Library/Cookies"] == "path", "\(rules)")
    }

    @Test("a path that does not exist is an error naming it, exit 1, and nothing goes")
    func nonexistentPath() throws {
        let setup = try CleanFixture()
        for flag in ["--dry-run", "--yes"] {
            let result = try setup.clean([flag, "--path", "Library/Caches/nonexistent"])
            #expect(result.exitStatus == 1, "\(flag): \(result)")
            #expect(
                result.errorText.contains("'Library/Caches/nonexistent': no such file or directory under ROOT"),
                "\(result.errorText)")
            #expect(!result.outputText.contains("would remove 0"), "\(result.outputText)")
        }
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "\(path)") }
        #expect(try setup.auditRecords().isEmpty)
    }

    @Test("a path that selects nothing (narrowed to no file) is an error naming it, exit 1")
    func pathSelectingNothing() throws {
        let setup = try CleanFixture()
        let result = try setup.clean(["--dry-run", "--path", Self.support, "--older-than", "1d"])
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains("--path '\(Self.support)' selected nothing"), "\(result.errorText)")
        #expect(try setup.exists(Self.support + "/db.sqlite"))
    }

    @Test("a path through a symlink is refused with the symlink named, exit 1")
    func pathThroughASymlink() throws {
        let setup = try CleanFixture()
        try setup.tree.makeSymlink(CleanFixture.root / "lib", target: "Library")
        let result = try setup.clean(["--yes", "--path", "lib/Cookies"])
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains("'lib' is a symlink, never followed"), "\(result.errorText)")
        #expect(try setup.exists("Library/Cookies/Cookies.binarycookies"))
    }

    @Test("--list on a tree with no category says so and points to --path")
    func listOnATreeWithNoCategory() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(LiveFixture.root / "scratch")
        try fixture.tree.writeFile(LiveFixture.root / "scratch" / "blob_1", byteCount: 4_000)
        let result = try ProcessRunner.run(fixture.cli.executablePath, ["clean", fixture.rootPath, "--list"])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.outputText.contains("No file here is in a category"), "\(result.outputText)")
        #expect(result.outputText.contains("--dry-run --path PATH"), "\(result.outputText)")
    }

    @Test("through a daemon: a path outside every category goes whole, into the daemon's audit log")
    func throughTheDaemon() throws {
        let setup = try CleanFixture()
        let daemon = try setup.fixture.start(
            options: ["--clean", "--leftover-after", "3650d"],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(setup.state.rootPath)"])
        let socket = ["--socket", daemon.socketPath]
        let missing = try setup.clean(socket + ["--yes", "--path", "scratch/blob_1"])
        #expect(missing.exitStatus == 1 && missing.errorText.contains("'scratch/blob_1': no such file"), "\(missing)")

        let dry = try setup.cleanJSON(socket + ["--dry-run", "--path", Self.support])
        #expect(dry["source"] as? String == "daemon")
        #expect(removedPaths(dry) == [Self.support + "/db.sqlite", Self.support], "\(dry)")
        let real = try setup.cleanJSON(socket + ["--yes", "--path", Self.support])
        #expect(removedPaths(real) == removedPaths(dry), "\(real)")
        #expect(!(try setup.exists(Self.support)))
        let intents = try setup.auditRecords().filter { $0["record"] as? String == "intent" }
        #expect(intents.compactMap { $0["path"] as? String } == removedPaths(dry), "\(intents)")
        #expect(intents.allSatisfy { ($0["run"] as? String)?.hasPrefix("\(daemon.processID)-") == true })
        _ = try setup.fixture.expectLiveMatchesScan("after clean --path", du: true)
        try setup.fixture.stopCleanly()
    }
}
