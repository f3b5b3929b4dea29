import Foundation
import QuotaWatchConfig
import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("the config's history section")
struct HistoryConfigLoaderTests {
    func load(_ text: String) throws(ConfigError) -> HistoryConfig {
        try PolicyConfigLoader.load(Array(text.utf8), file: "test.yaml").history
    }

    @Test("on by default, with or without a section, unless it says enabled: false; true and false as short forms")
    func enabling() throws {
        #expect(try load("") == HistoryConfig())
        #expect(try load("").enabled, "a background watcher records what happened while no one looked")
        #expect(try load("history: {keep: 7d}").enabled)
        #expect(try !load("history: {enabled: false, keep: 7d}").enabled)
        #expect(try load("history: true").enabled)
        #expect(try !load("history: false").enabled)
    }

    @Test("every key with its value")
    func values() throws {
        let config = try load(
            """
            history:
              sample_every: 2m
              keep: 14d
              max_size: 250MB
            """)
        #expect(config.enabled)
        #expect(config.sampleEvery == .seconds(120))
        #expect(config.keep == .seconds(14 * 86_400))
        #expect(config.maximumBytes == 250_000_000)
    }

    @Test(
        "bad values name the file, line, column, key and the way out",
        arguments: [
            ("history:\n  keep: forever\n", 2, 9, "history.keep", "invalid duration 'forever'"),
            ("history:\n  sample_every: 10ms\n", 2, 17, "history.sample_every", "shorter than 100ms"),
            ("history:\n  max_size: 10kB\n", 2, 13, "history.max_size", "less than 1MB"),
            ("history:\n  max_size: lots\n", 2, 13, "history.max_size", "invalid size 'lots'"),
            ("history:\n  kepp: 7d\n", 2, 3, "history.kepp", "did you mean 'keep'?"),
            ("history: maybe\n", 1, 10, "history", "write true or false"),
        ])
    func errors(text: String, line: Int, column: Int, key: String, message: String) {
        do {
            _ = try load(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.key == key, "\(error)")
            #expect(error.description.contains(message), "\(error)")
            #expect(error.description.hasPrefix("test.yaml:\(line):\(column):"), "\(error)")
        }
    }
}

@Suite("the example config's history section")
struct HistoryExampleConfigTests {
    @Test("docs/quotawatch.example.yaml turns history on with the defaults spelled out")
    func example() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/quotawatch.example.yaml")
        let config = try PolicyConfigLoader.load(try [UInt8](Data(contentsOf: url)), file: "example").history
        #expect(config.enabled && config.sampleEvery == .seconds(300) && config.keep == .seconds(30 * 86_400))
        #expect(config.maximumBytes == 100_000_000)
    }
}

@Suite("check-config's history part")
struct HistoryConfigSummaryTests {
    @Test("on without a section; off only when it says so; the values in force, defaults filled in")
    func summary() throws {
        let none = try PolicyConfigLoader.load([], file: "t.yaml")
        #expect(ConfigSummary.table(none).contains("HISTORY: on"))
        let off = try PolicyConfigLoader.load(Array("history: {enabled: false}\n".utf8), file: "t.yaml")
        #expect(ConfigSummary.table(off).contains("HISTORY: off"))
        let on = try PolicyConfigLoader.load(Array("history: {keep: 7d}\n".utf8), file: "t.yaml")
        #expect(ConfigSummary.table(on).contains("samples every 5m, kept 7d, at most 100MB"))
        let history = ConfigSummary.document(on).history
        #expect(history.enabled && history.keep == ContractNumber(604_800))
        #expect(history.sampleEvery == ContractNumber(300) && history.maximumBytes == 100_000_000)
        let line = ContractJSON.encodedString(history)
        #expect(line == #"{"enabled":true,"keep":604800,"max_size":100000000,"sample_every":300}"#, "\(line)")
    }
}
