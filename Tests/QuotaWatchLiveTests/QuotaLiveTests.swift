import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// Quotas decided from the events the daemon already follows, on real trees.
@Suite("quotas in the live daemon")
struct QuotaLiveTests {
    private let root = LiveFixture.root
    private var caches: TreePath { root / "Caches" }

    private func fixture(_ names: [String] = ["a", "b"]) throws -> LiveFixture {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectory(caches)
        for name in names { try fixture.tree.makeDirectory(caches / name) }
        return fixture
    }

    @Test("the write that crosses a limit brings quota_breach, a delete quota_ok, and nothing is re-listed")
    func breachAndOk() throws {
        let fixture = try fixture()
        let daemon = try fixture.start(options: ["--quota", "Caches/*=100kB"])
        let before = try daemon.syncStatus()
        try fixture.tree.writeFile(caches / "a" / "big", byteCount: 150_000)
        let breach = try daemon.waitForEvent("quota_breach", path: "Caches/a")
        #expect((breach.allocated ?? 0) > 100_000, "\(breach)")
        #expect(breach.effectiveLimit == 100_000, "\(breach)")
        #expect(breach.text.contains(#""time":""#), "\(breach)")
        try fixture.tree.unlinkEntry(caches / "a" / "big")
        try daemon.waitForEvent("quota_ok", path: "Caches/a")
        let after = try daemon.syncStatus()
        #expect(after.engine.rescannedDirs == before.engine.rescannedDirs, "\(before.engine) → \(after.engine)")
        #expect(daemon.events("quota_breach").count == 1, "Caches/b never crossed a line\n\(daemon.transcript)")
        try fixture.stopCleanly()
    }

    @Test("a steady writer's forecast is within 2x of its true rate after 5 s, and is announced once")
    func steadyWriterForecast() throws {
        let fixture = try fixture(["c"])
        let tree = fixture.tree
        try tree.writeFile(caches / "c" / "base", byteCount: 6_000_000)
        let daemon = try fixture.start(options: ["--quota", "Caches/c=10MB"])
        try tree.writeFile(caches / "c" / "growing", byteCount: 0)
        _ = try daemon.syncStatus()
        // 500 kB/s in 50 kB appends every 100 ms: the pacing of a writer, not a synchronisation.
        let started = Date()
        var written = 0
        while daemon.events("quota_forecast").isEmpty && Date().timeIntervalSince(started) < 7 {
            try tree.appendToFile(caches / "c" / "growing", byteCount: 50_000)
            written += 50_000
            Thread.sleep(forTimeInterval: 0.1)
        }
        let forecast = try daemon.waitForEvent("quota_forecast", path: "Caches/c")
        let trueRate = Double(written) / Date().timeIntervalSince(started)
        let fields = try #require(
            JSONSerialization.jsonObject(with: Data(forecast.text.utf8)) as? [String: Any])
        let rate = try #require(fields["bytes_per_second"] as? Double)
        #expect(rate > trueRate / 2 && rate < trueRate * 2, "forecast rate \(rate) B/s, true \(trueRate) B/s")
        // Two more seconds of the same: the predicted moment stays, so nothing is announced again.
        for _ in 0..<20 {
            try tree.appendToFile(caches / "c" / "growing", byteCount: 50_000)
            Thread.sleep(forTimeInterval: 0.1)
        }
        _ = try daemon.syncStatus()
        let forecasts = daemon.events("quota_forecast", where: { $0.path == "Caches/c" })
        #expect(forecasts.count <= 2, "re-announced \(forecasts.count) times\n\(daemon.transcript)")
        try fixture.stopCleanly()
    }

    @Test("a directory created later under the glob breaches too; a renamed one follows its new name")
    func createdAndRenamed() throws {
        let fixture = try fixture()
        let tree = fixture.tree
        let daemon = try fixture.start(options: ["--quota", "Caches/*=100kB"])
        try tree.makeDirectory(caches / "new")
        try tree.writeFile(caches / "new" / "big", byteCount: 150_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/new")

        try tree.writeFile(caches / "b" / "small", byteCount: 10_000)
        try tree.rename(caches / "b", to: caches / "moved")
        #expect(try daemon.quotas().quotas.map(\.path).sorted() == ["Caches/a", "Caches/moved", "Caches/new"])
        try tree.writeFile(caches / "moved" / "big", byteCount: 150_000)
        try daemon.waitForEvent("quota_breach", path: "Caches/moved")
        #expect(daemon.events("quota_breach", where: { $0.path == "Caches/b" }).isEmpty)

        try tree.rename(caches / "moved", to: root / "elsewhere")
        #expect(try daemon.quotas().quotas.map(\.path).sorted() == ["Caches/a", "Caches/new"], "out of the glob")
        try fixture.stopCleanly()
    }

    @Test("a daemon started on a tree already past a limit reports it at once, once")
    func fullAtStart() throws {
        let fixture = try fixture()
        try fixture.tree.writeFile(caches / "a" / "big", byteCount: 150_000)
        try fixture.tree.writeFile(caches / "b" / "some", byteCount: 85_000)
        let daemon = try fixture.start(options: ["--quota", "Caches/*=100kB"])
        try daemon.waitForEvent("quota_breach", path: "Caches/a")
        try daemon.waitForEvent("quota_warning", path: "Caches/b")
        let quotas = try daemon.quotas()
        #expect(try quotas.row("Caches/a").state == .breach)
        #expect(try quotas.row("Caches/b").state == .warning)
        #expect(daemon.events("quota_breach").count == 1 && daemon.events("quota_warning").count == 1)
        let events = daemon.events.map(\.event)
        #expect(events.firstIndex(of: "ready")! < events.firstIndex(of: "quota_breach")!)
        try fixture.stopCleanly()
    }

    @Test("status --quotas --json reports what du says, with limits and states")
    func statusMatchesDu() throws {
        let fixture = try fixture(["a", "b", "c"])
        let tree = fixture.tree
        try tree.makeDirectory(caches / "a" / "inner")
        try tree.writeFile(caches / "a" / "inner" / "f", byteCount: 70_000)
        try tree.writeFile(caches / "b" / "f", byteCount: 3_000)
        let daemon = try fixture.start(options: ["--quota", "Caches/*=100kB", "--quota", "Caches=1MB"])
        try tree.writeFile(caches / "c" / "f", byteCount: 123_456)
        try tree.appendToFile(caches / "a" / "inner" / "f", byteCount: 9_000)
        let quotas = try daemon.quotas()
        let paths = ["Caches", "Caches/a", "Caches/b", "Caches/c"]
        #expect(quotas.quotas.map(\.path).sorted() == paths)
        let du = try DuOracle.measure(tree, root: root, directories: paths.map { TreePath($0) })
        for path in paths {
            let row = try quotas.row(path)
            #expect(row.used == UInt64(du.sizes[TreePath(path)]!.allocated), "\(path): \(row) vs du \(du.sizes)")
        }
        #expect(try quotas.row("Caches/c").state == .breach)
        #expect(try quotas.row("Caches/b").state == .ok)
        #expect(try quotas.row("Caches").limit == 1_000_000)
        #expect(quotas.level.total != nil && quotas.level.free != nil)
        let table = try daemon.statusCommand(["status", daemon.root, "--socket", daemon.socketPath, "--quotas"])
        #expect(table.exitStatus == 0 && table.outputText.contains("Caches/c"), "\(table)")
        #expect(table.outputText.contains("LEVEL: "), "\(table)")
        try fixture.stopCleanly()
    }
}
