import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// A small app data container for `quotawatch clean`, with a file of every category and some
/// that have none, and a state directory of its own for the audit log.
struct CleanFixture {
    let fixture: LiveFixture
    let state: TempTree
    var tree: TempTree { fixture.tree }
    var rootPath: String { fixture.rootPath }
    static let root = LiveFixture.root
    /// A user file whose name is not UTF-8: `Documents/caf\xe9.pdf`.
    static let rawName: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".pdf".utf8)
    static let rawPathEscaped = "Documents/caf\\xe9.pdf"

    /// Every file made, relative to the root (escaped as the JSON writes it), with its category.
    static let expected: [String: String] = [
        "tmp/CFNetworkDownload_Ab12Cd.tmp": "leftovers",
        "tmp/CFNetworkDownload_Open99.tmp": "leftovers",
        "Library/Caches/com.apple.nsurlsessiond/Downloads/com.example.app/CFNetworkDownload_Zz.tmp": "leftovers",
        "tmp/scratch/part.bin": "tmp",
        "tmp/com.apple.dyld/old.closure": "dyld",
        "Library/Caches/com.example.feed/images/a.jpg": "caches",
        "Library/Caches/com.example.feed/images/b.jpg": "caches",
        "Library/Caches/com.example.maps/tiles/1.png": "caches",
        "Library/Caches/com.example.keep/k.bin": "caches",
        "Library/Caches/WebKit/NetworkCache/Version 16/Records/X/Resource/r": "webkit",
        "Library/Preferences/com.example.app.plist.Xy3kQ9z": "plists",
        "Documents/Inbox/shared.pdf": "inbox",
        "Documents/Trip.mov": "user-files",
        "Documents/Photos/IMG_1.heic": "user-files",
        "Documents/app.ipa": "user-files",
        rawPathEscaped: "user-files",
    ]
    /// Files with no category, or held back: never removed by any selection here.
    static let untouchable = [
        "tmp/com.apple.dyld/new.closure", "Library/Preferences/com.example.app.plist",
        "Library/Application Support/db.sqlite", "Library/Cookies/Cookies.binarycookies",
    ]

    init() throws {
        fixture = try LiveFixture()
        state = try TempTree(prefix: "qw-clean-state")
        let old = 1_600_000_000
        let sizes = [
            "tmp/CFNetworkDownload_Ab12Cd.tmp": 60_000, "tmp/CFNetworkDownload_Open99.tmp": 20_000,
            "Library/Caches/com.apple.nsurlsessiond/Downloads/com.example.app/CFNetworkDownload_Zz.tmp": 9_000,
            "tmp/scratch/part.bin": 10_000, "tmp/com.apple.dyld/old.closure": 8_000,
            "Library/Caches/com.example.feed/images/a.jpg": 40_000,
            "Library/Caches/com.example.feed/images/b.jpg": 5_000,
            "Library/Caches/com.example.maps/tiles/1.png": 12_000, "Library/Caches/com.example.keep/k.bin": 3_000,
            "Library/Caches/WebKit/NetworkCache/Version 16/Records/X/Resource/r": 30_000,
            "Library/Preferences/com.example.app.plist.Xy3kQ9z": 700, "Documents/Inbox/shared.pdf": 9_000,
            "Documents/Trip.mov": 100_000, "Documents/Photos/IMG_1.heic": 30_000, "Documents/app.ipa": 50_000,
            "tmp/com.apple.dyld/new.closure": 8_000, "Library/Preferences/com.example.app.plist": 900,
            "Library/Application Support/db.sqlite": 20_000, "Library/Cookies/Cookies.binarycookies": 2_000,
        ]
        for (path, size) in sizes {
            let treePath = Self.root.appending(TreePath(path))
            try tree.makeDirectories(treePath.parent!)
            try tree.writeFile(treePath, byteCount: size)
        }
        try tree.writeFile(Self.root / "Documents" / Self.rawName, byteCount: 7_000)
        // Old: the first download, the stale dyld cache, one feed image, the video.
        for path in [
            "tmp/CFNetworkDownload_Ab12Cd.tmp", "tmp/com.apple.dyld/old.closure",
            "Library/Caches/com.example.feed/images/a.jpg", "Documents/Trip.mov",
        ] {
            try setModified(tree, Self.root.appending(TreePath(path)), secondsSinceEpoch: old)
        }
    }

    var environment: [String: String] { ["STATE_DIRECTORY": state.rootPath] }

    /// `quotawatch clean ROOT` plus `arguments`, with the fixture's state directory.
    func clean(_ arguments: [String], raw: [[UInt8]] = []) throws -> ProcessResult {
        let words = (["clean", rootPath] + arguments).map { Array($0.utf8) } + raw
        return try ProcessRunner.run(fixture.cli.executablePath, words, environment: environment)
    }

    /// `clean … --json`, decoded; fails the test unless it exits 0.
    func cleanJSON(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let result = try clean(arguments + ["--json"])
        #expect(result.exitStatus == 0, "\(result)", sourceLocation: sourceLocation)
        guard let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any] else {
            throw DaemonError("clean --json printed no object", result: result)
        }
        return object
    }

    func exists(_ escaped: String) throws -> Bool { try tree.exists(Self.root.appending(Self.treePath(escaped))) }

    /// The components of an escaped path.
    static func treePath(_ escaped: String) -> TreePath {
        TreePath(components: escaped.split(separator: "/").map { unescape(String($0)) })
    }

    /// `\xNN` and `\\` back to bytes.
    static func unescape(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "\\"), input.first == UInt8(ascii: "x"), input.count >= 3 {
                bytes.append(UInt8(String(decoding: input.dropFirst().prefix(2), as: UTF8.self), radix: 16)!)
                input = input.dropFirst(3)
            } else if byte == UInt8(ascii: "\\"), input.first == UInt8(ascii: "\\") {
                bytes.append(byte)
                input = input.dropFirst()
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    /// `du -cB1` of these files: each inode once, as the page counts.
    func du(_ escapedPaths: [String]) throws -> UInt64 {
        guard !escapedPaths.isEmpty else { return 0 }
        let script = "cd \"$1\" && shift && du -cB1 -- \"$@\" | tail -n 1"
        let words: [[UInt8]] =
            [Array("-c".utf8), Array(script.utf8), Array("sh".utf8), Array(rootPath.utf8)]
            + escapedPaths.map { Self.treePath($0).components.joined(separator: [UInt8(ascii: "/")]).map { $0 } }
        let result = try ProcessRunner.run("/bin/sh", words)
        guard result.exitStatus == 0, let total = UInt64(result.outputText.split(separator: "\t").first ?? "") else {
            throw DaemonError("du failed", result: result)
        }
        return total
    }

    /// Every audit record in the state directory.
    func auditRecords() throws -> [[String: Any]] {
        var records: [[String: Any]] = []
        let base = URL(fileURLWithPath: state.rootPath)
        for case let url as URL in FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) ?? .init()
        where url.lastPathComponent == "audit.jsonl" {
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                    records.append(object)
                }
            }
        }
        return records
    }
}

/// The paths a `clean --json` deletion report lists as removed, and the skipped ones with reasons.
func removedPaths(_ report: [String: Any]) -> [String] {
    (report["removed"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
}

func skippedReasons(_ report: [String: Any]) -> [String: String] {
    var reasons: [String: String] = [:]
    for entry in report["skipped"] as? [[String: Any]] ?? [] {
        if let path = entry["path"] as? String { reasons[path] = entry["reason"] as? String ?? "" }
    }
    return reasons
}

/// Each category of a `clean --json` page by name.
func categories(_ page: [String: Any]) -> [String: [String: Any]] {
    var result: [String: [String: Any]] = [:]
    for category in page["categories"] as? [[String: Any]] ?? [] {
        if let name = category["name"] as? String { result[name] = category }
    }
    return result
}

func itemPaths(_ category: [String: Any]?) -> [String] {
    (category?["items"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
}
