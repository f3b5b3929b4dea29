import Foundation
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// `status --quotas --state S --top N` against a daemon with quotas in every state.
@Suite("status --quotas filters")
struct QuotaFilterLiveTests {
    @Test("--state keeps one state's rows, --top N the N most used for their limit, in JSON and in the table")
    func stateAndTop() throws {
        let fixture = try LiveFixture()
        let caches = LiveFixture.root / "Caches"
        try fixture.tree.makeDirectory(caches)
        for name in ["a", "b", "c", "d"] { try fixture.tree.makeDirectory(caches / name) }
        try fixture.tree.writeFile(caches / "a" / "big", byteCount: 150_000)
        try fixture.tree.writeFile(caches / "b" / "some", byteCount: 85_000)
        try fixture.tree.writeFile(caches / "c" / "more", byteCount: 200_000)
        let daemon = try fixture.start(options: ["--quota", "Caches/*=100kB"])
        try daemon.waitForEvent("quota_warning", path: "Caches/b")

        func rows(_ filter: [String]) throws -> [String] {
            let result = try daemon.statusCommand(
                ["status", fixture.rootPath, "--socket", fixture.socketPath, "--quotas", "--json", "--sync"] + filter)
            #expect(result.exitStatus == 0, "\(result)")
            return try JSONDecoder().decode(QuotaStatus.self, from: Data(result.standardOutput)).quotas.map(\.path)
                .sorted()
        }
        #expect(try rows([]) == ["Caches/a", "Caches/b", "Caches/c", "Caches/d"])
        #expect(try rows(["--state", "breach"]) == ["Caches/a", "Caches/c"])
        #expect(try rows(["--state", "warning"]) == ["Caches/b"])
        #expect(try rows(["--state", "ok"]) == ["Caches/d"])
        #expect(try rows(["--top", "1"]) == ["Caches/c"])
        #expect(try rows(["--top", "3"]) == ["Caches/a", "Caches/b", "Caches/c"])
        #expect(try rows(["--state", "breach", "--top", "1"]) == ["Caches/c"])

        let table = try daemon.statusCommand(
            ["status", fixture.rootPath, "--socket", fixture.socketPath, "--quotas", "--state", "warning"])
        #expect(table.outputText.contains("Caches/b"), "\(table.outputText)")
        #expect(!table.outputText.contains("Caches/a") && !table.outputText.contains("Caches/d"))
        try fixture.stopCleanly()
    }
}
