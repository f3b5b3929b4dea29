import Foundation
import QuotaWatchTestSupport
import Testing

/// `scan --ios`: the phone's figures against du on a real sandbox and bundle.
@Suite("scan --ios")
struct ScanPhoneStorageTests {
    /// A small sandbox: caches, documents, tmp, and a bundle next to it (outside the root).
    private static func makeTree() throws -> TempTree {
        let tree = try TempTree(prefix: "qw-ios")
        try tree.makeDirectories("sandbox/Library/Caches/com.example.feed")
        try tree.makeDirectories("sandbox/Documents")
        try tree.makeDirectories("sandbox/tmp")
        try tree.writeFile("sandbox/Library/Caches/com.example.feed/a", byteCount: 300_000)
        try tree.writeFile("sandbox/Library/Caches/b", byteCount: 5000)
        try tree.writeFile("sandbox/Documents/notes", byteCount: 123_456)
        try tree.writeFile("sandbox/tmp/t", byteCount: 10)
        try tree.makeDirectories("App.app/Frameworks")
        try tree.writeFile("App.app/App", byteCount: 2_000_000)
        try tree.writeFile("App.app/Frameworks/lib", byteCount: 70_000)
        return tree
    }

    private struct IOSFigures: Decodable {
        var version: Int
        var caches_allocated: UInt64
        var caches_counted: Bool
        var documents_and_data: UInt64
        var app_allocated: UInt64?
        var total: UInt64
    }

    private struct Output: Decodable {
        var ios: IOSFigures
    }

    @Test("the JSON's figures are du's: the root, the root less Library/Caches for iOS 16, the bundle")
    func againstDu() throws {
        let tree = try Self.makeTree()
        let du = try DuOracle.measure(tree, directories: ["sandbox", "sandbox/Library/Caches", "App.app"])
        let root = try #require(du.sizes["sandbox"])
        let caches = try #require(du.sizes["sandbox/Library/Caches"])
        let bundle = try #require(du.sizes["App.app"])
        let cli = try CLIRunner.locate()
        for (version, documents) in [("16", root.allocated - caches.allocated), ("17", root.allocated)] {
            let result = try cli.run([
                "scan", tree.absolutePath("sandbox"), "--json", "--ios-version", version, "--bundle",
                tree.absolutePath("App.app"),
            ])
            #expect(result.exitStatus == 0, "\(result)")
            let figures = try JSONDecoder().decode(Output.self, from: Data(result.standardOutput)).ios
            #expect(figures.version == Int(version))
            #expect(figures.caches_allocated == UInt64(caches.allocated), "\(figures)")
            #expect(figures.caches_counted == (version == "17"))
            #expect(figures.documents_and_data == UInt64(documents), "iOS \(version): \(figures)")
            #expect(figures.app_allocated == UInt64(bundle.allocated), "\(figures)")
            #expect(figures.total == UInt64(documents + bundle.allocated), "\(figures)")
        }
    }

    @Test("the table ends with the phone's line in decimal units and the raw totals")
    func table() throws {
        let tree = try Self.makeTree()
        let du = try DuOracle.measure(tree, directories: ["sandbox"])
        let root = try #require(du.sizes["sandbox"])
        let result = try CLIRunner.locate().run(["scan", tree.absolutePath("sandbox"), "--ios", "--bytes"])
        #expect(result.exitStatus == 0, "\(result)")
        let lines = result.outputText.split(separator: "\n").map(String.init)
        #expect(lines.last == "raw: \(root.allocated) B allocated, \(root.apparent) B apparent", "\(result)")
        #expect(lines.dropLast().last?.hasPrefix("iOS 17: ") == true, "\(result)")
        let phone = lines.dropLast().last ?? ""
        // Decimal units even under --bytes: "… KB", never "… B" for these sizes.
        #expect(phone.contains("KB (Documents & Data ") && phone.contains("KB; Library/Caches counted: "), "\(result)")
    }

    @Test("a version that is not a whole number, or a bundle that is not a directory, is a usage error naming it")
    func badValues() throws {
        let tree = try Self.makeTree()
        let cli = try CLIRunner.locate()
        let sandbox = tree.absolutePath("sandbox")
        let version = try cli.run(["scan", sandbox, "--ios-version", "15.x"])
        #expect(version.exitStatus == 64 && version.errorText.contains("'15.x'"), "\(version)")
        #expect(version.outputText.isEmpty, "\(version)")
        let file = tree.absolutePath("App.app/App")
        let notDirectory = try cli.run(["scan", sandbox, "--ios", "--bundle", file])
        #expect(notDirectory.exitStatus == 64, "\(notDirectory)")
        #expect(notDirectory.errorText.contains("'\(file)' for '--bundle': it is not a directory"), "\(notDirectory)")
        let missing = try cli.run(["scan", sandbox, "--bundle", tree.absolutePath("Missing.app")])
        #expect(missing.exitStatus == 64 && missing.errorText.contains("Missing.app"), "\(missing)")
    }
}
