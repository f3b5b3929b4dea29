import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("clean: categories of an app's files, as a pure function of the path")
struct CleanClassifierTests {
    private func classify(_ path: String) -> CleanClass? { CleanClassifier.classify(Array(path.utf8)) }
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(
        "each category, its group and kind",
        arguments: [
            ("tmp/CFNetworkDownload_Ab12Cd.tmp", CleanClass(.leftovers)),
            (
                "Library/Caches/com.apple.nsurlsessiond/Downloads/com.example.app/CFNetworkDownload_x.tmp",
                CleanClass(.leftovers)
            ),
            ("tmp/upload.part", CleanClass(.tmp)),
            ("tmp/deep/CFNetworkDownload_x.tmp", CleanClass(.tmp)),
            (
                "tmp/com.apple.dyld/App-1.closure",
                CleanClass(.dyld, group: Array("tmp/com.apple.dyld/App-1.closure".utf8))
            ),
            (
                "Library/Caches/com.apple.dyld/App.closure/x",
                CleanClass(.dyld, group: Array("Library/Caches/com.apple.dyld/App.closure".utf8))
            ),
            ("Library/Caches/WebKit/NetworkCache/Version 16/Records/A/Resource/x", CleanClass(.webkit)),
            ("Library/Caches/com.example.app/WebKit/NetworkCache/salt", CleanClass(.webkit)),
            (
                "Library/Caches/com.example.feed/images/00/01/a.jpg",
                CleanClass(.caches, group: Array("Library/Caches/com.example.feed".utf8))
            ),
            ("Library/Caches/loose.db", CleanClass(.caches, group: Array("Library/Caches".utf8))),
            ("Library/Preferences/com.example.app.plist.Xy3kQ9z", CleanClass(.plists)),
            ("Library/Preferences/com.example.app.plist.lockfile", CleanClass(.plists)),
            ("Library/Preferences/.dat.nosync1f2e.Ab12Cd", CleanClass(.plists)),
            ("Documents/Inbox/report.pdf", CleanClass(.inbox)),
            ("Documents/Inbox/sub/report.pdf", CleanClass(.inbox)),
            ("Documents/Trip.MOV", CleanClass(.userFiles, kind: .video)),
            ("Documents/Photos/2024/IMG_0042.HEIC", CleanClass(.userFiles, kind: .images)),
            ("Documents/app.ipa", CleanClass(.userFiles, kind: .packages)),
            ("Documents/a.apk", CleanClass(.userFiles, kind: .packages)),
            ("Documents/b.dmg", CleanClass(.userFiles, kind: .packages)),
            ("Documents/c.deb", CleanClass(.userFiles, kind: .packages)),
            ("Documents/Export 7.pdf", CleanClass(.userFiles, kind: .pdf)),
            ("Documents/Budget.xlsx", CleanClass(.userFiles, kind: .office)),
            ("Documents/backup.tar.gz", CleanClass(.userFiles, kind: .archives)),
            ("Documents/Notes 1.txt", CleanClass(.userFiles, kind: .other)),
            ("Documents/.hidden", CleanClass(.userFiles, kind: .other)),
            ("Documents/trailingdot.", CleanClass(.userFiles, kind: .other)),
        ])
    func categories(path: String, expected: CleanClass) {
        #expect(classify(path) == expected, "\(path)")
    }

    @Test(
        "what has no category is never listed",
        arguments: [
            "Library/Preferences/com.example.app.plist", "Library/Preferences/sub/x.plist.tmp",
            "Library/Application Support/com.example.app/Model.sqlite", "Library/Cookies/Cookies.binarycookies",
            ".com.apple.mobile_container_manager.metadata.plist", "Documents", "tmp", "Library/Caches",
            "tmp/com.apple.dyld", "Documents/Inbox", "SystemData/x", "a//b", "",
        ])
    func uncategorised(path: String) {
        #expect(classify(path) == nil, "\(path)")
    }

    @Test("names that are not UTF-8 are classified by their bytes, the extension folded to lower case")
    func rawNames() {
        let name = bytes("Documents/caf") + [0xE9] + bytes(".PDF")
        #expect(CleanClassifier.classify(name) == CleanClass(.userFiles, kind: .pdf))
        #expect(UserFileKind.of(name: [0xFF, 0x2E, 0x4D, 0x50, 0x34]) == .video)
    }

    @Test("a download leftover is what the ios-sandbox profile's cfnetwork-download rule matches")
    func agreesWithProfile() throws {
        let rule = try #require(IOSSandboxProfile.rules(age: .seconds(1)).first { $0.name == "cfnetwork-download" })
        for path in [
            "tmp/CFNetworkDownload_a.tmp", "tmp/CFNetworkDownload_.tmp", "tmp/CFNetworkDownload_a.tmpx",
            "tmp/XCFNetworkDownload_a.tmp",
            "Library/Caches/com.apple.nsurlsessiond/Downloads/b/CFNetworkDownload_q.tmp",
            "Library/Caches/com.apple.nsurlsessiond/Downloads/CFNetworkDownload_q.tmp",
        ] {
            #expect(rule.matches(bytes(path)) == (classify(path)?.category == .leftovers), "\(path)")
        }
    }
}

@Suite("clean: what is offered, how it is grouped, what a selection deletes")
struct CleanPlannerTests {
    private static let now: Int64 = 1_700_000_000_000_000_000
    private static let day: Int64 = 86_400_000_000_000

    private func item(
        _ path: String, bytes: UInt64, daysOld: Int64 = 0, inode: UInt64 = 0, links: UInt64 = 1
    )
        -> CleanItem
    {
        let status = FileStatus(
            device: 1, inode: inode == 0 ? UInt64(path.utf8.count * 1000 + Int(bytes % 997)) : inode, kind: .regular,
            linkCount: links, apparentBytes: bytes, allocatedBytes: bytes,
            modifiedNanoseconds: Self.now - daysOld * Self.day)
        return CleanItem(path: Array(path.utf8), status: status)!
    }

    private var sample: [CleanItem] {
        [
            item("tmp/CFNetworkDownload_a.tmp", bytes: 4096, daysOld: 3),
            item("tmp/CFNetworkDownload_b.tmp", bytes: 8192, daysOld: 0),
            item("Library/Caches/com.example.feed/a.jpg", bytes: 40960, daysOld: 10),
            item("Library/Caches/com.example.feed/b.jpg", bytes: 4096, daysOld: 1),
            item("Library/Caches/com.example.maps/t.png", bytes: 12288, daysOld: 30),
            item("tmp/com.apple.dyld/old.closure", bytes: 4096, daysOld: 9),
            item("tmp/com.apple.dyld/new.closure", bytes: 4096, daysOld: 1),
            item("Documents/Trip.mov", bytes: 1_000_000, daysOld: 40),
            item("Documents/IMG_1.heic", bytes: 200_000, daysOld: 2),
            item("Documents/Inbox/x.pdf", bytes: 4096, daysOld: 8),
        ]
    }

    private func paths(_ items: [CleanItem]) -> [String] { items.map { String(decoding: $0.path, as: UTF8.self) } }

    private func selection(
        categories: [String] = [], kinds: [String] = [], paths: [String] = [], older: String? = nil,
        larger: String? = nil
    ) throws -> CleanSelection {
        try CleanSelection.parse(
            categories: categories.map { Array($0.utf8) }, kinds: kinds.map { Array($0.utf8) },
            paths: paths.map { Array($0.utf8) }, olderThan: older.map { Array($0.utf8) },
            largerThan: larger.map { Array($0.utf8) })
    }

    @Test("the newest dyld cache and a download open for writing are held back, with the reason")
    func heldBack() {
        let (offered, held) = ManualCleanPlanner.offer(sample) { $0.path == Array("tmp/CFNetworkDownload_b.tmp".utf8) }
        let reasons = Dictionary(
            uniqueKeysWithValues: held.map { (String(decoding: $0.item.path, as: UTF8.self), $0.hold) })
        #expect(
            reasons == [
                "tmp/CFNetworkDownload_b.tmp": .openForWriting, "tmp/com.apple.dyld/new.closure": .newestDyldCache,
            ])
        #expect(!paths(offered).contains("tmp/com.apple.dyld/new.closure"))
        #expect(paths(offered).contains("tmp/com.apple.dyld/old.closure"))
        #expect(offered.count == sample.count - 2)
    }

    @Test("the page: every category, caches by business and user files by kind, largest first")
    func page() {
        let page = ManualCleanPlanner.page(ManualCleanPlanner.offer(sample) { _ in false }.offered)
        #expect(page.map(\.category) == CleanCategory.allCases)
        let caches = page.first { $0.category == .caches }!
        #expect(
            caches.groups.map { String(decoding: $0.key.name, as: UTF8.self) } == [
                "com.example.feed", "com.example.maps",
            ])
        #expect(caches.totals.count == 3 && caches.totals.allocatedBytes == 40960 + 4096 + 12288)
        let user = page.first { $0.category == .userFiles }!
        #expect(user.groups.map(\.key.kind) == [.video, .images])
        #expect(paths(user.items) == ["Documents/Trip.mov", "Documents/IMG_1.heic"])
        #expect(page.first { $0.category == .plists }!.totals == CleanTotals())
    }

    @Test("hard-linked names count each, their blocks once")
    func hardLinks() {
        let totals = CleanTotals([
            item("tmp/a", bytes: 4096, inode: 7, links: 2), item("tmp/b", bytes: 4096, inode: 7, links: 2),
        ])
        #expect(totals.count == 2 && totals.allocatedBytes == 4096)
    }

    @Test("categories, businesses, kinds and paths select; age and size narrow")
    func selections() throws {
        let offered = ManualCleanPlanner.offer(sample) { _ in false }.offered
        func chosen(_ selection: CleanSelection) -> [String] {
            paths(ManualCleanPlanner.select(offered, selection, nowNanoseconds: Self.now))
        }
        #expect(
            chosen(try selection(categories: ["leftovers"])) == [
                "tmp/CFNetworkDownload_b.tmp", "tmp/CFNetworkDownload_a.tmp",
            ])
        #expect(
            chosen(try selection(categories: ["caches:com.example.maps"])) == ["Library/Caches/com.example.maps/t.png"])
        #expect(chosen(try selection(categories: ["caches"], older: "5d")).count == 2)
        #expect(
            chosen(try selection(categories: ["caches"], larger: "5KB")) == [
                "Library/Caches/com.example.feed/a.jpg", "Library/Caches/com.example.maps/t.png",
            ])
        let all = chosen(try selection(categories: ["all"]))
        #expect(!all.contains { $0.hasPrefix("Documents/") && !$0.hasPrefix("Documents/Inbox/") }, "\(all)")
        #expect(all.contains("Documents/Inbox/x.pdf"))
        #expect(chosen(try selection(kinds: ["video"])) == ["Documents/Trip.mov"])
        #expect(chosen(try selection(categories: ["user-files"], kinds: ["images"])) == ["Documents/IMG_1.heic"])
        #expect(chosen(try selection(paths: ["Documents/IMG_1.heic"])) == ["Documents/IMG_1.heic"])
        #expect(chosen(try selection(paths: ["Library/Caches"])).count == 3)
    }

    @Test(
        "bad values are refused, naming the value and the way out",
        arguments: [
            (["bogus"], [String](), [String](), "unknown category 'bogus'; the categories are leftovers"),
            (["user-files"], [], [], "deleted only when you name them: add --kind KIND"),
            (["caches:a/b"], [], [], "after 'caches:' comes one directory name"),
            ([], ["movies"], [], "unknown kind 'movies'; the kinds of user files are video"),
            ([], [], ["/etc/passwd"], "is absolute"),
            ([], [], ["../x"], "leaves its directory"),
            ([], [], ["a\\q"], "has a backslash"),
        ])
    func badValues(categories: [String], kinds: [String], paths: [String], message: String) {
        #expect {
            _ = try selection(categories: categories, kinds: kinds, paths: paths)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test("bad ages and sizes, and words that are not UTF-8")
    func badWords() {
        #expect(throws: CleanSelectionError.self) { try selection(categories: ["tmp"], older: "3 fortnights") }
        #expect(throws: CleanSelectionError.self) { try selection(categories: ["tmp"], larger: "-1MB") }
        #expect {
            _ = try CleanSelection.parse(
                categories: [], kinds: [], paths: [Array("Documents/caf".utf8) + [0xE9]], olderThan: nil,
                largerThan: nil)
        } throws: { error in
            "\(error)".contains("'--path Documents/caf\\xe9' is not valid UTF-8") && "\(error)".contains("\\xNN")
        }
        // The escaped form is the way out, and names the same bytes.
        let escaped = try? selection(paths: ["Documents/caf\\xe9"])
        #expect(escaped?.paths == [Array("Documents/caf".utf8) + [0xE9]])
    }
}

@Suite("clean: classifying a directory's files at once")
struct CleanFileClassifierTests {
    static let directories = [
        "", "tmp", "tmp/a", "tmp/a/b", "tmp/com.apple.dyld", "tmp/com.apple.dyld/x", "Library", "Library/Caches",
        "Library/Caches/com.example.feed", "Library/Caches/com.example.feed/images/00", "Library/Caches/WebKit",
        "Library/Caches/WebKit/NetworkCache", "Library/Caches/com.example.app/WebKit",
        "Library/Caches/com.example.app/WebKit/NetworkCache", "Library/Caches/com.apple.dyld",
        "Library/Caches/com.apple.dyld/x", "Library/Caches/com.apple.nsurlsessiond",
        "Library/Caches/com.apple.nsurlsessiond/Downloads", "Library/Caches/com.apple.nsurlsessiond/Downloads/app",
        "Library/Caches/com.apple.nsurlsessiond/Downloads/app/deeper", "Library/Preferences",
        "Library/Preferences/sub", "Library/Application Support", "Documents", "Documents/Inbox",
        "Documents/Inbox/sub", "Documents/Photos", "Documents/Photos/Inbox", "SystemData",
    ]
    static let names = [
        "a", "CFNetworkDownload_x.tmp", "x.plist.Ab12Cd", ".dat.nosync12.x", "x.plist", "clip.MOV", "a.pdf",
        "b.ipa", "c.zip", "d.docx", "e.heic", "WebKit", "Inbox", "com.apple.dyld",
    ]

    @Test("the same class as the file's whole path, for every directory and name")
    func agrees() {
        for directory in Self.directories {
            let classifier = CleanFileClassifier(directory: Array(directory.utf8))
            for name in Self.names {
                let path = directory.isEmpty ? name : directory + "/" + name
                #expect(
                    classifier.classify(name: Array(name.utf8)) == CleanClassifier.classify(Array(path.utf8)),
                    "\(path)")
                if classifier.classifiesNothing { #expect(CleanClassifier.classify(Array(path.utf8)) == nil) }
            }
        }
    }
}
