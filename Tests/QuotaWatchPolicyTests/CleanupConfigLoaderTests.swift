import QuotaWatchConfig
import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("the config's cleaners")
struct CleanupConfigLoaderTests {
    func load(_ text: String) throws(ConfigError) -> PolicyConfig {
        try PolicyConfigLoader.load(Array(text.utf8), file: "test.yaml")
    }

    func failure(_ text: String) -> ConfigError? {
        do {
            _ = try load(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("without a cleaners section: leftovers, then eviction of every quota directory by mtime to 80 %")
    func defaults() throws {
        let settings = try load("").cleanup
        #expect(settings.cleaners == CleanupSettings.defaultCleaners)
        #expect(settings.periodic == PeriodicCleanupSchedule())
        #expect(settings.appVersion == nil && settings.protect.isEmpty)
    }

    @Test("the registered cleaners' place: bare or with its timeout, one only, no other keys")
    func registered() throws {
        #expect(
            try load("cleaners: [leftovers, registered, evict]").cleanup.cleaners.map(\.kind) == [
                "leftovers", "registered", "evict",
            ])
        #expect(
            try load("cleaners: [{kind: registered, timeout: 5s}]").cleanup.cleaners == [
                .registered(timeout: .seconds(5))
            ])
        #expect(failure("cleaners: [registered, registered]")?.description.contains("a second cleaner named") == true)
        #expect(failure("cleaners: [{kind: registered, name: feed}]")?.description.contains("name") == true)
        #expect(failure("cleaners: [{kind: registered, timeout: forever}]") != nil)
    }

    @Test("every kind, in order, with its values; periodic, app_version, protect")
    func full() throws {
        let settings = try load(
            """
            cleaners:
              - leftovers
              - {kind: evict, path: "Library/Caches/*", order: lru, target: 60%}
              - kind: webkit-trim
                limit: 50MB
              - {kind: expire, name: old-tmp, path: "tmp/*", age: 7d}
              - {kind: command, name: app, command: [/usr/bin/app-clean, --fast], timeout: 30s}
            periodic: {normal: 12h, critical: 5m}
            app_version: {file: /Applications/X.app/Info.plist}
            protect: ["Library/Keep/**", "tmp/pinned"]
            """
        ).cleanup
        #expect(
            settings.cleaners == [
                .leftovers(name: "leftovers"),
                .evict(name: "evict", path: try PathGlob("Library/Caches/*"), order: .leastRecentlyUsed, target: 0.6),
                .trim(name: "webkit-trim", path: try PathGlob(CleanerSpec.webKitNetworkCache), limit: 50_000_000),
                .expire(name: "old-tmp", path: try PathGlob("tmp/*"), age: .seconds(7 * 86_400)),
                .command(
                    name: "app", argv: [Array("/usr/bin/app-clean".utf8), Array("--fast".utf8)], timeout: .seconds(30)),
            ])
        #expect(settings.wantsOpens)
        #expect(
            settings.periodic
                == PeriodicCleanupSchedule(normal: .seconds(43_200), warning: .seconds(3600), critical: .seconds(300)))
        #expect(settings.appVersion == .infoPlist(Array("/Applications/X.app/Info.plist".utf8)))
        #expect(settings.protect.map(\.text) == ["Library/Keep/**", "tmp/pinned"])
        #expect(try load("app_version: '2.1'").cleanup.appVersion == .fixed("2.1"))
    }

    @Test("mistakes name the file, line, column and the way out")
    func errors() throws {
        let unknown = failure("cleaners:\n  - {kind: evict, age: 1d}\n")
        #expect(unknown?.line == 2 && unknown?.key == "cleaners[0].age", "\(String(describing: unknown))")
        #expect(unknown?.message.contains("Allowed here: kind, name, path, order, target") == true)
        let kind = failure("cleaners:\n  - kind: vacuum\n")
        #expect(kind?.message.contains("leftovers, evict, webkit-trim, expire, command") == true)
        #expect(failure("cleaners:\n  - {kind: expire, path: 'tmp/*'}\n")?.message.contains("'age' is missing") == true)
        #expect(
            failure("cleaners:\n  - {kind: command, command: 'rm -rf x'}\n")?.message.contains("list of words") == true)
        let twice = failure("cleaners:\n  - {kind: command, command: [a]}\n  - {kind: command, command: [b]}\n")
        #expect(twice?.message.contains("second cleaner named 'command'") == true && twice?.line == 3)
        #expect(failure("periodic: {hourly: 1h}\n")?.message.contains("unknown key 'hourly'") == true)
        #expect(failure("app_version: {file: Info.plist}\n")?.message.contains("absolute path") == true)
        #expect(failure("cleaners:\n  - {kind: evict, target: 0}\n")?.message.contains("less than 0.01") == true)
        #expect(failure("cleanrs: []\n")?.message.contains("did you mean 'cleaners'?") == true)
    }

    @Test("check-config shows the cleaners in order, as a table and in its JSON")
    func summary() throws {
        let config = try load("cleaners: [{kind: evict, order: lru}, leftovers]\nprotect: tmp/keep\n")
        let table = ConfigSummary.table(config)
        #expect(table.contains("CLEANERS"), "\(table)")
        let evict = try #require(table.range(of: "order lru"))
        let leftovers = try #require(table.range(of: "(leftover rules)"))
        #expect(evict.lowerBound < leftovers.lowerBound)
        #expect(table.contains("protect: tmp/keep"))
        let json = ContractJSON.encodedString(ConfigSummary.document(config))
        #expect(json.contains(#""cleanup":{"app_version":null,"cleaners":[{"kind":"evict""#), "\(json)")
    }
}
