import Foundation
import QuotaWatchConfig
import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("the YAML config")
struct ConfigLoaderTests {
    func load(_ text: String) throws(ConfigError) -> PolicyConfig {
        try PolicyConfigLoader.load(Array(text.utf8), file: "test.yaml")
    }

    @Test("an empty file is the defaults")
    func empty() throws {
        #expect(try load("") == PolicyConfig())
        #expect(try load("# only a comment\n") == PolicyConfig())
    }

    @Test("a full config decodes into the values it says")
    func full() throws {
        let config = try load(
            """
            profile: ios-sandbox
            quotas:
              - path: "Library/Caches/*"
                limit: 200MB
                warning: 90%
                size: apparent
                protect: yes
              - path: 'tmp/*'
                budget: 1GiB
                weights: {'tmp/caf\\xe9': 3}
            levels:
              free: {warning: 20GB, critical: [5%, 1GB]}
              root: {critical: 80GB}
              scale: {critical: 0.25}
              check: {critical: 2s}
            leftovers:
              age: 30m
              rules:
                - {name: cfnetwork-download, age: 5m}
                - {name: big, paths: 'Library/Big', kind: directory-over, limit: 1GB}
              disable: temporary-plist
            forecast: {horizon: 2h, window: 5m, change: 0.5, min_interval: 90s}
            hooks:
              - command: [notify-send, QuotaWatch]
                events: all
                rate_limit: 5m
                stdout: stderr
            """)
        #expect(config.profile == .iosSandbox)
        #expect(config.quotas.count == 1 && config.quotas[0].limit == 200_000_000)
        #expect(config.quotas[0].thresholds == QuotaThresholds(warningRatio: 0.9, size: .apparent, protect: true))
        #expect(config.budgets[0].baseWeight(of: Array("tmp/caf".utf8) + [0xe9]) == 3)
        #expect(config.budgets[0].budget == 1 << 30 && config.budgets[0].baseWeight(of: Array("tmp/a".utf8)) == 1)
        #expect(config.levels.freeWarning == [.bytes(20_000_000_000)])
        #expect(config.levels.freeCritical == [.share(0.05), .bytes(1_000_000_000)])
        #expect(config.levels.rootCritical == 80_000_000_000 && config.levels.rootWarning == nil)
        #expect(config.levels.scale == PerLevel(normal: 1, warning: 0.7, critical: 0.25))
        #expect(config.levels.checkPeriod.critical == .seconds(2))
        let rules = config.effectiveLeftoverRules(profileApplies: true)
        #expect(rules.first { $0.name == "cfnetwork-download" }?.kind == .idleFile(age: .seconds(300)))
        #expect(rules.first { $0.name == "big" }?.kind == .directoryOver(limit: 1_000_000_000))
        #expect(!rules.contains { $0.name == "temporary-plist" })
        #expect(rules.first { $0.name == "documents-inbox" } != nil)
        #expect(config.forecast.horizon == .seconds(7200) && config.forecast.changeRatio == 0.5)
        #expect(config.forecast.minimumInterval == .seconds(90))
        #expect(
            config.hooks == [
                HookSpec(
                    name: "hook-1", command: [Array("notify-send".utf8), Array("QuotaWatch".utf8)], events: [],
                    rateLimitPerPath: .seconds(300), standardOutput: .daemonStandardError)
            ])
    }

    @Test(
        "bad configs name the line, column, key, value and what is allowed",
        arguments: [
            ("qouta:\n  - path: x\n", "test.yaml:1:1: qouta: unknown key 'qouta'; did you mean 'quotas'?"),
            (
                "quotas:\n  - path: x\n    limit: 20XB\n",
                "test.yaml:3:12: quotas[0].limit: invalid size '20XB': unknown unit 'XB'"
            ),
            (
                "quotas:\n  - path: x\n    limt: 2GB\n",
                "test.yaml:3:5: quotas[0].limt: unknown key 'limt'; did you mean 'limit'?"
            ),
            ("quotas: {path: x}\n", "test.yaml:1:9: quotas: expected a list, found a mapping"),
            ("quotas:\n  - path: x\n", "test.yaml:2:5: quotas[0]: 'limit' or 'budget' is missing"),
            ("quotas:\n  - path: '/x'\n    limit: 1GB\n", "test.yaml:2:11: quotas[0].path: invalid glob '/x'"),
            ("quotas:\n  - path: 'a/[bc'\n    limit: 1GB\n", "closing ']'"),
            (
                "quotas:\n  - path: x\n    limit: 1GB\n    warning: 1.5\n",
                "test.yaml:4:14: quotas[0].warning: invalid ratio '1.5'"
            ),
            (
                "leftovers:\n  age: 10 minutes\n",
                "test.yaml:2:8: leftovers.age: invalid duration '10 minutes': unknown unit 'minutes'"
            ),
            ("leftovers:\n  disable: [temporary-plst]\n", "did you mean 'temporary-plist'?"),
            (
                "levels:\n  free: {warning: 10 percent}\n",
                "test.yaml:2:19: levels.free.warning: invalid size '10 percent'"
            ),
            ("hooks:\n  - command: []\n", "test.yaml:2:14: hooks[0].command: the command is empty"),
            (
                "hooks:\n  - command: notify-send hi\n",
                "test.yaml:2:14: hooks[0].command: expected the command as a list"
            ),
            ("hooks:\n  - command: [x]\n    events: [breach]\n", "hooks[0].events: unknown event 'breach'"),
            ("hooks:\n  - command: [x]\n    events: []\n", "hooks[0].events: no event is named; expected 'all'"),
            (
                "hooks:\n  - command: [x]\n    timeout: 0s\n",
                "hooks[0].timeout: invalid duration '0s': it is shorter than 1ms"
            ),
            (
                "profile: sandbox\n",
                "test.yaml:1:10: profile: invalid value 'sandbox'; write one of auto, ios-sandbox, none"
            ),
            ("quotas: [\n", "test.yaml:2:1:"),
            ("a: 1\n---\nb: 2\n", "a second document"),
            (
                "quotas:\n  - path: x\n    limit: 1GB\n    limit: 2GB\n",
                "test.yaml:4:5: quotas[0].limit: 'limit' is given twice"
            ),
        ])
    func badConfigs(text: String, expected: String) {
        #expect {
            try load(text)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test("docs/quotawatch.example.yaml is valid")
    func example() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/quotawatch.example.yaml")
        let bytes = try [UInt8](Data(contentsOf: url))
        let config = try PolicyConfigLoader.load(bytes, file: "quotawatch.example.yaml")
        #expect(config.quotas.count == 2 && config.budgets.count == 1 && config.hooks.count == 2)
    }

    @Test("anchors and aliases are resolved")
    func aliases() throws {
        let config = try load(
            """
            quotas:
              - &cache {path: 'Library/Caches/*', limit: 100MB}
              - *cache
            """)
        #expect(config.quotas.count == 2 && config.quotas[1].limit == 100_000_000)
    }
}
