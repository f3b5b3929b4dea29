import Foundation
import QuotaWatchTestSupport
import Testing

/// `status --ios`: the phone's figures from a running daemon, against du.
@Suite("status --ios from the live daemon")
struct StatusPhoneStorageLiveTests {
    private struct Output: Decodable {
        struct Figures: Decodable {
            var caches_allocated: UInt64
            var documents_and_data: UInt64
            var app_allocated: UInt64?
            var total: UInt64
        }
        var ios: Figures
        var engine: [String: AnyCodableValue]?
    }

    /// Accepts any JSON value: only the presence of "engine" is checked.
    private struct AnyCodableValue: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    @Test("after a write, status --sync --ios-version 16 --bundle gives du's root less Library/Caches, plus the bundle")
    func againstDu() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let root = LiveFixture.root
        let caches = root / "Library" / "Caches"
        try tree.makeDirectories(caches / "feed")
        try tree.makeDirectories(root / "Documents")
        try tree.writeFile(caches / "feed" / "a", byteCount: 200_000)
        try tree.makeDirectories(LiveFixture.outside / "App.app")
        try tree.writeFile(LiveFixture.outside / "App.app" / "App", byteCount: 1_000_000)
        let daemon = try fixture.start()
        // Written after the crawl: the figures are live ones.
        try tree.writeFile(caches / "feed" / "b", byteCount: 50_000)
        try tree.writeFile(root / "Documents" / "d", byteCount: 70_000)

        let result = try daemon.statusCommand([
            "status", fixture.rootPath, "--socket", fixture.socketPath, "--sync", "--json", "--ios-version", "16",
            "--bundle", tree.absolutePath(LiveFixture.outside / "App.app"),
        ])
        #expect(result.exitStatus == 0, "\(result)")
        let output = try JSONDecoder().decode(Output.self, from: Data(result.standardOutput))
        #expect(output.engine != nil, "status --json --ios lost its engine object: \(result)")
        let du = try DuOracle.measure(
            tree, directories: [root, caches, LiveFixture.outside / "App.app"])
        let sandbox = try #require(du.sizes[root])
        let cachesSize = try #require(du.sizes[caches])
        let bundle = try #require(du.sizes[LiveFixture.outside / "App.app"])
        #expect(output.ios.caches_allocated == UInt64(cachesSize.allocated), "\(result)")
        #expect(output.ios.documents_and_data == UInt64(sandbox.allocated - cachesSize.allocated), "\(result)")
        #expect(output.ios.app_allocated == UInt64(bundle.allocated), "\(result)")
        #expect(output.ios.total == UInt64(sandbox.allocated - cachesSize.allocated + bundle.allocated), "\(result)")

        let table = try daemon.statusCommand(["status", fixture.rootPath, "--socket", fixture.socketPath, "--ios"])
        #expect(table.exitStatus == 0 && table.outputText.contains("\niOS 17: "), "\(table)")
        let quotas = try daemon.statusCommand([
            "status", fixture.rootPath, "--socket", fixture.socketPath, "--ios", "--quotas",
        ])
        #expect(quotas.exitStatus == 64 && quotas.errorText.contains("--quotas"), "\(quotas)")
        try fixture.stopCleanly()
    }
}
