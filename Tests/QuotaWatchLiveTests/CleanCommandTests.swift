import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `quotawatch clean ROOT` with no daemon: it crawls the tree, lists by category with du's
/// numbers, and deletes through the Deleter and the audit log.
@Suite("clean without a daemon")
struct CleanCommandTests {
    @Test("every category is listed with the files it should hold, and its size is du's for those files")
    func listingMatchesDu() throws {
        let setup = try CleanFixture()
        let page = try setup.cleanJSON([])
        #expect(page["source"] as? String == "crawl")
        let byName = categories(page)
        #expect(
            (page["categories"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                == ["leftovers", "caches", "tmp", "dyld", "inbox", "webkit", "plists", "user-files"])
        var listed: [String: String] = [:]
        for (name, category) in byName {
            let paths = itemPaths(category)
            for path in paths { listed[path] = name }
            let allocated = (category["allocated"] as? NSNumber)?.uint64Value
            #expect(allocated == (try setup.du(paths)), "\(name): \(paths)")
            #expect((category["files"] as? NSNumber)?.intValue == paths.count, "\(name)")
        }
        // The open download is listed too here: nothing holds it open in this test.
        #expect(listed == CleanFixture.expected, "listed \(listed)")
        // Caches by business, each with du's size of its files; user files by kind, largest first.
        let groups = byName["caches"]?["groups"] as? [[String: Any]] ?? []
        #expect(
            groups.compactMap { $0["name"] as? String } == ["com.example.feed", "com.example.maps", "com.example.keep"])
        for group in groups {
            let name = group["name"] as? String ?? ""
            let files = itemPaths(byName["caches"]).filter { $0.hasPrefix("Library/Caches/\(name)/") }
            #expect((group["allocated"] as? NSNumber)?.uint64Value == (try setup.du(files)), "\(name)")
        }
        let user = byName["user-files"]?["items"] as? [[String: Any]] ?? []
        #expect(user.compactMap { $0["path"] as? String }.first == "Documents/Trip.mov")
        #expect(user.first?["kind"] as? String == "video")
        #expect(((user.first?["age_seconds"] as? NSNumber)?.int64Value ?? 0) > 86_400 * 365)
        #expect(
            (page["held"] as? [[String: Any]])?.compactMap { $0["path"] as? String } == [
                "tmp/com.apple.dyld/new.closure"
            ])
        let total = (page["total"] as? [String: Any])?["allocated"] as? NSNumber
        #expect(total?.uint64Value == (try setup.du(Array(CleanFixture.expected.keys))))

        // The table says the same in the phone's units, and in KiB with --iec.
        let table = try setup.clean([])
        #expect(table.exitStatus == 0 && table.outputText.contains("com.example.feed"), "\(table)")
        #expect(table.outputText.contains("Nothing was deleted"))
        let iec = try setup.clean(["--iec"])
        #expect(iec.outputText.contains("KiB"), "\(iec)")
    }

    @Test("--yes removes exactly what --dry-run listed, writes the audit log, and touches nothing else")
    func dryRunIsExact() throws {
        let setup = try CleanFixture()
        let selection = [
            "--category", "leftovers", "--category", "dyld", "--category", "caches", "--older-than", "30d",
        ]
        let dry = try setup.cleanJSON(selection + ["--dry-run"])
        let listed = removedPaths(dry)
        #expect(dry["dry_run"] as? Bool == true)
        #expect(
            Set(listed) == [
                "tmp/CFNetworkDownload_Ab12Cd.tmp", "tmp/com.apple.dyld/old.closure",
                "Library/Caches/com.example.feed/images/a.jpg",
            ], "\(listed)")
        for path in listed { #expect(try setup.exists(path), "the dry run removed \(path)") }
        #expect(try setup.auditRecords().isEmpty, "a dry run records nothing")

        let real = try setup.cleanJSON(selection + ["--yes"])
        #expect(removedPaths(real) == listed)
        #expect(real["dry_run"] as? Bool == false && real["source"] as? String == "crawl")
        for path in CleanFixture.expected.keys {
            #expect(try setup.exists(path) == !listed.contains(path), "\(path)")
        }
        for path in CleanFixture.untouchable { #expect(try setup.exists(path), "\(path)") }
        let audit = try setup.auditRecords()
        let intents = audit.filter { $0["record"] as? String == "intent" }
        #expect(intents.compactMap { $0["path"] as? String } == listed)
        #expect(intents.allSatisfy { $0["cleaner"] as? String == "clean" && $0["trigger"] as? String == "manual" })
        #expect(audit.filter { $0["result"] as? String == "removed" }.count == listed.count)
    }

    @Test("protected paths are kept: a protect glob of the config, and Documents/ unless named")
    func protectedKept() throws {
        let setup = try CleanFixture()
        try setup.state.writeFile(
            "app.yaml", contents: Array("protect: [\"Library/Caches/com.example.keep/**\"]\n".utf8))
        let report = try setup.cleanJSON(
            ["--yes", "--category", "caches", "--config", setup.state.absolutePath("app.yaml")])
        #expect(skippedReasons(report) == ["Library/Caches/com.example.keep/k.bin": "protected"], "\(report)")
        #expect(try setup.exists("Library/Caches/com.example.keep/k.bin"))
        #expect(!(try setup.exists("Library/Caches/com.example.maps/tiles/1.png")))
    }

    @Test("a download still open for writing is held back on the page and kept by --yes")
    func openDownloadKept() throws {
        let setup = try CleanFixture()
        let open = "tmp/CFNetworkDownload_Open99.tmp"
        let descriptor = try setup.tree.openForAppending(CleanFixture.root.appending(TreePath(open)))
        defer { close(descriptor) }
        let page = try setup.cleanJSON([])
        let held = (page["held"] as? [[String: Any]] ?? []).map {
            ($0["path"] as? String ?? "", $0["reason"] as? String)
        }
        #expect(held.contains { $0.0 == open && $0.1 == "open_for_writing" }, "\(held)")
        #expect(!itemPaths(categories(page)["leftovers"]).contains(open))

        let report = try setup.cleanJSON(["--yes", "--category", "leftovers"])
        let reason = skippedReasons(report)[open] ?? ""
        let writer = Int32(reason.split(separator: " ").last ?? "")
        #expect(
            reason.hasPrefix("open for writing by pid ") && writer.map(isThisProcessOrItsChild) == true, "\(report)")
        #expect(try setup.exists(open))
        #expect(!(try setup.exists("tmp/CFNetworkDownload_Ab12Cd.tmp")))
    }

    @Test("your files go only when named: by kind or by path, never by a category")
    func userFilesNeedExplicitSelection() throws {
        let setup = try CleanFixture()
        let user = CleanFixture.expected.filter { $0.value == "user-files" }.map(\.key)
        let refused = try setup.clean(["--yes", "--category", "user-files"])
        #expect(refused.exitStatus == 64 && refused.errorText.contains("--kind KIND"), "\(refused)")
        let all = try setup.cleanJSON(["--yes", "--category", "all"])
        #expect(removedPaths(all).contains("Documents/Inbox/shared.pdf"))
        for path in user { #expect(try setup.exists(path), "--category all removed \(path)") }

        let video = try setup.cleanJSON(["--yes", "--kind", "video"])
        #expect(removedPaths(video) == ["Documents/Trip.mov"])
        let raw = try setup.cleanJSON(["--yes", "--path", CleanFixture.rawPathEscaped])
        #expect(removedPaths(raw) == [CleanFixture.rawPathEscaped])
        #expect(!(try setup.exists(CleanFixture.rawPathEscaped)))
        for path in ["Documents/Photos/IMG_1.heic", "Documents/app.ipa"] { #expect(try setup.exists(path)) }
    }

    @Test("bad values are refused with the value and the way out, and nothing is deleted")
    func badValues() throws {
        let setup = try CleanFixture()
        let cases: [([String], [[UInt8]], String)] = [
            (["--yes", "--category", "cache"], [], "unknown category 'cache'; the categories are leftovers"),
            (["--yes"], [], "--yes deletes only what you name"),
            (["--yes", "--category", "tmp", "--older-than", "3 weeks"], [], "invalid duration '3 weeks'"),
            (["--yes", "--category", "tmp", "--larger-than", "lots"], [], "invalid size 'lots'"),
            (["--yes", "--kind", "movies"], [], "unknown kind 'movies'"),
            (["--yes", "--path"], [Array("Documents/caf".utf8) + [0xE9] + Array(".pdf".utf8)], "is not valid UTF-8"),
        ]
        for (arguments, raw, message) in cases {
            let result = try setup.clean(arguments, raw: raw)
            #expect(result.exitStatus == 64, "\(arguments): \(result)")
            #expect(result.errorText.contains(message), "\(arguments): \(result.errorText)")
        }
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "\(path)") }
        #expect(try setup.auditRecords().isEmpty)
    }

    @Test("a state directory that cannot be made: --yes deletes nothing and names clean's way out, not run's --clean")
    func unwritableStateDirectory() throws {
        let setup = try CleanFixture()
        try setup.state.writeFile("file", byteCount: 1)
        let state = setup.state.absolutePath("file/state")  // below a regular file: never a directory
        let words = ["clean", setup.rootPath, "--yes", "--category", "tmp"].map { Array($0.utf8) }
        let result = try ProcessRunner.run(
            setup.fixture.cli.executablePath, words, environment: ["STATE_DIRECTORY": state])
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains("cannot open the audit log"), "\(result.errorText)")
        #expect(result.errorText.contains("or use --dry-run"), "\(result.errorText)")
        #expect(!result.errorText.contains("--clean"), "clean has no --clean: \(result.errorText)")
        #expect(try setup.exists("tmp/scratch/part.bin"))
    }

    @Test("--json has the documented shape")
    func jsonShape() throws {
        let setup = try CleanFixture()
        let page = try setup.cleanJSON([])
        #expect(Set(page.keys) == ["categories", "held", "root", "source", "total"])
        #expect(page["root"] as? String == setup.rootPath)
        for category in page["categories"] as? [[String: Any]] ?? [] {
            #expect(Set(category.keys) == ["allocated", "apparent", "files", "groups", "items", "name", "title"])
            for item in category["items"] as? [[String: Any]] ?? [] {
                #expect(
                    Set(item.keys) == ["age_seconds", "allocated", "apparent", "group", "kind", "modified", "path"])
            }
            for group in category["groups"] as? [[String: Any]] ?? [] {
                #expect(Set(group.keys) == ["allocated", "apparent", "files", "name", "path"])
            }
        }
        #expect(Set((page["total"] as? [String: Any])?.keys ?? [:].keys) == ["allocated", "apparent", "files"])
        let report = try setup.cleanJSON(["--dry-run", "--category", "tmp"])
        #expect(Set(report.keys) == ["dry_run", "error", "freed", "removed", "root", "run", "skipped", "source"])
        #expect(removedPaths(report) == ["tmp/scratch/part.bin"])
    }
}
