import QuotaWatchCore
import Testing

@Suite("Sizes as the phone shows them")
struct PhoneStorageTests {
    private let root = DirectoryReport(path: ".", allocated: 32_628_736, apparent: 25_440_742, files: 3000, dirs: 52)
    private let caches = DirectoryReport(
        path: "Library/Caches", allocated: 23_953_408, apparent: 17_500_000, files: 2652, dirs: 20)

    @Test("iOS 17 counts Library/Caches; 16 and earlier leave it out")
    func cachesByVersion() throws {
        let directories = [root, caches]
        let ios17 = try #require(PhoneStorage(version: .standard, directories: directories, appAllocated: nil))
        #expect(ios17.documentsAndData == 32_628_736 && ios17.total == 32_628_736)
        #expect(ios17.cachesAllocated == 23_953_408)
        for major in [16, 15, 12] {
            let older = try #require(
                PhoneStorage(version: IOSVersion(major: major), directories: directories, appAllocated: nil))
            #expect(older.documentsAndData == 32_628_736 - 23_953_408, "iOS \(major)")
        }
        #expect(IOSVersion.standard.major == 17)
    }

    @Test("the bundle adds to the total, not to Documents & Data")
    func bundle() throws {
        let storage = try #require(
            PhoneStorage(version: IOSVersion(major: 16), directories: [root, caches], appAllocated: 5_308_416))
        #expect(storage.documentsAndData == 8_675_328)
        #expect(storage.total == 8_675_328 + 5_308_416)
    }

    @Test("a sandbox without Library/Caches loses nothing; rows without the root give nil")
    func missingRows() throws {
        let storage = try #require(PhoneStorage(version: IOSVersion(major: 16), directories: [root], appAllocated: nil))
        #expect(storage.documentsAndData == root.allocated && storage.cachesAllocated == 0)
        #expect(PhoneStorage(version: .standard, directories: [caches], appAllocated: nil) == nil)
    }

    @Test("caches larger than the root (a hard link counted in both) never underflow")
    func noUnderflow() {
        let storage = PhoneStorage(
            version: IOSVersion(major: 16), rawAllocated: 4096, rawApparent: 10, cachesAllocated: 8192,
            appAllocated: nil)
        #expect(storage.documentsAndData == 0)
    }

    @Test("the lines: the phone's figure in decimal units whatever the table's format, the raw totals in it")
    func lines() throws {
        let storage = try #require(
            PhoneStorage(version: IOSVersion(major: 16), directories: [root, caches], appAllocated: 5_308_416))
        #expect(
            storage.lines(rawFormat: .binary) == [
                "iOS 16: 14.0 MB (App 5.3 MB + Documents & Data 8.7 MB; Library/Caches left out: 24.0 MB)",
                "raw: 31.1 MiB allocated, 24.3 MiB apparent",
            ])
    }

    @Test(
        "--ios-version takes a whole major version",
        arguments: [("16", 16), ("17", 17), ("9", 9), ("18", 18)] as [(String, Int)])
    func parsesVersions(text: String, major: Int) {
        #expect(IOSVersion.parse(text) == IOSVersion(major: major))
    }

    @Test("anything else is refused", arguments: ["15.x", "16.4", "", "-1", "0", "1", "100", "seventeen", "١٧", " 17"])
    func refusesVersions(text: String) {
        #expect(IOSVersion.parse(text) == nil)
    }

    @Test("from a tally tree: the root and Library/Caches, found by path")
    func fromTree() {
        func status(_ inode: UInt64, _ kind: FileStatus.Kind, allocated: UInt64) -> FileStatus {
            FileStatus(
                device: 1, inode: inode, kind: kind, linkCount: 1, apparentBytes: allocated / 2,
                allocatedBytes: allocated)
        }
        var tree = TallyTree(root: status(1, .directory, allocated: 4096))
        let library = tree.addDirectory(
            named: Array("Library".utf8), in: tree.root, status: status(2, .directory, allocated: 4096))
        let cachesDirectory = tree.addDirectory(
            named: Array("Caches".utf8), in: library, status: status(3, .directory, allocated: 4096))
        tree.addFile(named: Array("c".utf8), in: cachesDirectory, status: status(4, .regular, allocated: 40_960))
        tree.addFile(named: Array("d".utf8), in: tree.root, status: status(5, .regular, allocated: 8192))
        let ios16 = tree.phoneStorage(version: IOSVersion(major: 16), appAllocated: 100)
        #expect(ios16.rawAllocated == 4096 * 3 + 40_960 + 8192)
        #expect(ios16.cachesAllocated == 4096 + 40_960)
        #expect(ios16.documentsAndData == 4096 * 2 + 8192)
        #expect(ios16.total == 4096 * 2 + 8192 + 100)
        #expect(
            TallyTree(root: status(1, .directory, allocated: 4096)).phoneStorage(version: .standard, appAllocated: nil)
                .cachesAllocated == 0)
    }
}
