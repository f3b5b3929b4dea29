import QuotaWatchConfig
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

/// `check-config --json` as a Codable shape (``ConfigSummaryDocument``): a config that sets
/// every kind of rule, hook and cleaner, written from fixed inputs and compared with its golden
/// file, then read back and written again (the default config's file is checked the same way in
/// GoldenJSONTests and ContractShapeGoldenTests).
@Suite("check-config --json: a config with every kind, against its golden file both ways")
struct GoldenJSONCheckConfigTests {
    static let everyKind = """
        profile: ios-sandbox
        quotas:
          - {path: 'Library/Caches/*', limit: 200MB, warning: 0.75, hysteresis: 3%, protect: true}
          - {path: 'Library/Application Support/*', budget: 2GB, weight: 1.5, activity_weight: 0.25,
             weights: {'Library/Application Support/com.example.feed': 3}, size: apparent}
        activity_half_life: 15m
        levels:
          free: {warning: [10%, 5GB], critical: [1GB]}
          root: {warning: 50GB}
          step: 32MB
        leftovers:
          age: 2h
          rules:
            - {name: old-logs, paths: ['Library/Logs/**/*.log'], kind: older-than, age: 7d}
          disable: [dyld-cache]
        hooks:
          - {name: notify, command: [notify-send, QuotaWatch], events: [quota_breach, level], rate_limit: 5m}
          - {name: all, command: [logger]}
        cleaners:
          - leftovers
          - {kind: evict, path: 'Library/Caches/*', order: lru, target: 70%}
          - {kind: webkit-trim, limit: 100MB}
          - {kind: expire, name: old-tmp, path: 'tmp/*', age: 7d}
          - {kind: command, name: app-cleanup, command: [/usr/local/bin/app-cleanup, --quick], timeout: 90s}
          - {kind: registered, timeout: 10s}
        periodic: {normal: 12h, warning: 30m, critical: 5m}
        app_version: {file: /opt/app/MyApp.app/Info.plist}
        protect: ['Library/Application Support/**']
        history: {enabled: true, keep: 7d, sample_every: 1m, max_size: 10MB}

        """

    @Test("every kind of rule, hook and cleaner, from a fixed config: the golden bytes, and back again")
    func everyKind() throws {
        let config = try PolicyConfigLoader.load(Array(Self.everyKind.utf8), file: "every-kind.yaml")
        let document = ConfigSummary.document(config)
        let written = ContractJSON.encode(document)
        let mismatch = GoldenFixture.mismatch(written, "check-config-every-kind")
        #expect(mismatch == nil, "\(mismatch ?? "")")
        let read = try ContractJSON.decode(ConfigSummaryDocument.self, from: written)
        #expect(read == document)
        #expect(ContractJSON.encode(read) == written)
        // Each kind's own fields, read back as its case.
        #expect(
            read.cleanup.cleaners.map(\.kind.name) == [
                "leftovers", "evict", "webkit-trim", "expire", "command", "registered",
            ])
        #expect(read.cleanup.cleaners.last?.kind == .registered(timeout: ContractNumber(10)))
        #expect(read.cleanup.appVersion == .infoPlist(file: "/opt/app/MyApp.app/Info.plist"))
        #expect(read.hooks.map(\.rateLimit) == [ContractNumber(300), nil])
        #expect(read.levels.root == .init(warning: 50_000_000_000, critical: nil))
    }

    @Test("a fixed version and no registered timeout are written as such, and nulls stay nulls")
    func fixedVersionAndNulls() throws {
        let config = try PolicyConfigLoader.load(
            Array("cleaners: [{kind: registered}, {kind: evict}]\napp_version: '2.3.1'\n".utf8), file: "c.yaml")
        let line = ContractJSON.encodedString(ConfigSummary.document(config).cleanup)
        #expect(
            line == #"{"app_version":"2.3.1","cleaners":[{"kind":"registered","name":"registered","timeout":null},"#
                + #"{"kind":"evict","name":"evict","order":"mtime","path":null,"target":0.8}],"#
                + #""periodic":{"critical":600,"normal":86400,"warning":3600},"protect":[]}"#, "\(line)")
        let read = try ContractJSON.decode(ConfigSummaryDocument.Cleanup.self, from: Array(line.utf8))
        #expect(ContractJSON.encodedString(read) == line)
        #expect(read.appVersion == .fixed("2.3.1"))
    }
}
