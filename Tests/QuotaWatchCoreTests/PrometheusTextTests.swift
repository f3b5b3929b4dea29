import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchCore

@Suite("Prometheus text format")
struct PrometheusTextTests {
    /// A snapshot with every optional part present, and names that need escaping.
    private func fullSnapshot() -> MetricsSnapshot {
        var snapshot = MetricsSnapshot(version: "1.2.3", root: "/srv/app \"data\"")
        snapshot.ready = true
        snapshot.rootTally = Tally(usage: Usage(allocated: 1_048_576, apparent: 1_000_000), files: 12, dirs: 3)
        snapshot.directories = [
            .init(path: "Caches", usage: Usage(allocated: 819_200, apparent: 800_000)),
            .init(path: EscapedName.string([0x62, 0xff, 0x5c, 0x0a]), usage: Usage(allocated: 4096, apparent: 10)),
        ]
        snapshot.quotas = [
            .init(
                path: "Caches/Feed", rule: "Caches/*", size: .allocated, used: 819_200, limit: 500_000,
                effectiveLimit: 400_000, state: .breach, secondsSinceChange: nil, bytesPerSecond: 2048.5,
                secondsToBreach: nil),
            .init(
                path: "Caches/Img", rule: "Caches/*", size: .apparent, used: nil, limit: 500_000,
                effectiveLimit: 500_000, state: .ok, secondsSinceChange: nil, bytesPerSecond: 0,
                secondsToBreach: 600.25),
        ]
        snapshot.level = .init(current: "critical", all: ["normal", "warning", "critical"])
        snapshot.freeBytes = 5_000_000
        snapshot.totalBytes = 100_000_000
        snapshot.watches = 4
        snapshot.degradedSubtrees = 1
        snapshot.counters.inotifyEvents = 99
        snapshot.counters.quotaBreaches = 2
        snapshot.counters.leftovers = 3
        snapshot.counters.leftoverBytes = 12_288
        snapshot.counters.cleanupRuns = 1
        snapshot.counters.removedFiles = 7
        snapshot.counters.removedBytes = 28_672
        snapshot.counters.hookFailures = 1
        return snapshot
    }

    @Test("every line parses strictly; every family has HELP and TYPE; counters end in _total")
    func strictlyParsable() throws {
        let text = PrometheusText.render(fullSnapshot())
        let parsed = try PrometheusExposition(text)
        #expect(text.hasSuffix("\n"))
        for name in Set(parsed.samples.map(\.name)) {
            #expect(name.hasPrefix("quotawatch_"), "\(name)")
            #expect(parsed.helps[name] != nil, "\(name) has no HELP")
            let type = try #require(parsed.types[name], "\(name) has no TYPE")
            #expect((type == "counter") == name.hasSuffix("_total"), "\(name) is a \(type)")
        }
        #expect(parsed.value("quotawatch_build_info", ["version": "1.2.3"]) == 1)
        #expect(parsed.value("quotawatch_root_info", ["root": "/srv/app \"data\""]) == 1)
    }

    @Test("values: sizes in bytes, states as state sets, the forecast only where known")
    func values() throws {
        let parsed = try PrometheusExposition(PrometheusText.render(fullSnapshot()))
        #expect(parsed.value("quotawatch_root_allocated_bytes") == 1_048_576)
        #expect(parsed.value("quotawatch_root_apparent_bytes") == 1_000_000)
        #expect(parsed.value("quotawatch_directory_allocated_bytes", ["path": "Caches"]) == 819_200)
        let feed = ["path": "Caches/Feed", "rule": "Caches/*"]
        #expect(parsed.value("quotawatch_quota_used_bytes", feed.merging(["size": "allocated"]) { $1 }) == 819_200)
        #expect(parsed.samples("quotawatch_quota_used_bytes").count == 1, "Img's usage is not known")
        // One label set for every family of a quota: division matches without ignoring(size).
        for family in [
            "quotawatch_quota_limit_bytes", "quotawatch_quota_effective_limit_bytes", "quotawatch_quota_breached",
            "quotawatch_quota_growth_bytes_per_second",
        ] {
            let labels = try #require(parsed.samples(family).first { $0.labels["path"] == "Caches/Feed" }?.labels)
            let expected = feed.merging(["size": "allocated", "root": "/srv/app \"data\""]) { $1 }
            #expect(labels == expected, "\(family): \(labels)")
        }
        #expect(parsed.value("quotawatch_quota_limit_bytes", feed) == 500_000)
        #expect(parsed.value("quotawatch_quota_effective_limit_bytes", feed) == 400_000)
        #expect(parsed.value("quotawatch_quota_breached", feed) == 1)
        #expect(parsed.value("quotawatch_quota_breached", ["path": "Caches/Img"]) == 0)
        #expect(parsed.value("quotawatch_quota_state", feed.merging(["state": "breach"]) { $1 }) == 1)
        #expect(parsed.value("quotawatch_quota_state", feed.merging(["state": "ok"]) { $1 }) == 0)
        #expect(parsed.value("quotawatch_quota_growth_bytes_per_second", feed) == 2048.5)
        #expect(parsed.samples("quotawatch_quota_seconds_to_breach").map(\.labels["path"]) == ["Caches/Img"])
        #expect(parsed.value("quotawatch_quota_seconds_to_breach") == 600.25)
        #expect(parsed.samples("quotawatch_level").filter { $0.value == 1 }.map(\.labels["level"]) == ["critical"])
        #expect(parsed.value("quotawatch_free_bytes") == 5_000_000)
        #expect(parsed.value("quotawatch_watcher_degraded") == 1)
        #expect(parsed.value("quotawatch_cleanup_removed_bytes_total") == 28_672)
        #expect(parsed.value("quotawatch_leftover_bytes_total") == 12_288)
        #expect(parsed.value("quotawatch_hook_failures_total") == 1)
    }

    @Test("several roots: each family once, every root's series with its root label, build_info once")
    func severalRoots() throws {
        var other = MetricsSnapshot(version: "1.2.3", root: "/home/bob")
        other.ready = true
        other.rootTally = Tally(usage: Usage(allocated: 8192, apparent: 5), files: 1, dirs: 0)
        other.quotas = [
            .init(
                path: "Caches/Feed", rule: "Caches/*", size: .allocated, used: 8192, limit: 4096, effectiveLimit: 4096,
                state: .breach, secondsSinceChange: nil, bytesPerSecond: 0, secondsToBreach: nil)
        ]
        let text = PrometheusText.render([fullSnapshot(), other])
        let parsed = try PrometheusExposition(text)
        #expect(text.components(separatedBy: "# TYPE quotawatch_root_allocated_bytes ").count == 2)
        #expect(parsed.samples("quotawatch_build_info").count == 1)
        #expect(parsed.samples("quotawatch_build_info").first?.labels["root"] == nil, "process-wide, no root")
        #expect(parsed.value("quotawatch_root_allocated_bytes", ["root": "/home/bob"]) == 8192)
        #expect(parsed.value("quotawatch_root_allocated_bytes", ["root": "/srv/app \"data\""]) == 1_048_576)
        let breached = parsed.samples("quotawatch_quota_breached").filter { $0.value == 1 }.map { $0.labels["root"] }
        #expect(Set(breached) == ["/home/bob", "/srv/app \"data\""], "the same quota path under two roots stays apart")
        for sample in parsed.samples where sample.name != "quotawatch_build_info" {
            #expect(sample.labels["root"] != nil, "\(sample.name) has no root label")
        }
    }

    @Test("before the policy layer starts there is no level, no free space and no quota series")
    func optionalFamiliesAbsent() throws {
        let parsed = try PrometheusExposition(PrometheusText.render(MetricsSnapshot(version: "0", root: "/r")))
        #expect(parsed.value("quotawatch_ready") == 0)
        #expect(parsed.samples("quotawatch_level").isEmpty)
        #expect(parsed.samples("quotawatch_free_bytes").isEmpty)
        #expect(parsed.samples("quotawatch_quota_limit_bytes").isEmpty)
        #expect(parsed.types["quotawatch_quota_limit_bytes"] == nil, "no HELP or TYPE for a family without samples")
    }

    @Test(
        "label values escape backslash, quote and newline",
        arguments: [
            ("plain", "plain"), ("a\\b", "a\\\\b"), ("say \"hi\"", "say \\\"hi\\\""), ("two\nlines", "two\\nlines"),
            ("é ✓", "é ✓"),
        ])
    func labelEscaping(raw: String, escaped: String) {
        #expect(PrometheusText.escapeLabelValue(raw) == escaped)
    }

    @Test("a path that is not UTF-8 reads back, through the format, as status --json shows it")
    func nonUTF8Path() throws {
        let name: [UInt8] = [0x62, 0xff, 0x5c, 0x0a]
        let text = PrometheusText.render(fullSnapshot())
        #expect(text.contains(#"{path="b\\xff\\\\\n",root="#), "the line as written")
        let parsed = try PrometheusExposition(text)
        let paths = parsed.samples("quotawatch_directory_allocated_bytes").compactMap { $0.labels["path"] }
        #expect(paths.contains(EscapedName.string(name)))
        #expect(paths.compactMap(EscapedName.bytes).contains(name), "the label maps back to the exact bytes")
    }

    @Test(
        "numbers as the format writes them",
        arguments: [
            (0.0, "0"), (1.5, "1.5"), (-2.0, "-2"), (Double.nan, "NaN"), (Double.infinity, "+Inf"),
            (-Double.infinity, "-Inf"), (1e20, "1e+20"), (0.001, "0.001"),
        ])
    func numbers(value: Double, text: String) {
        #expect(PrometheusText.number(value) == text)
    }

    @Test("HELP text escapes backslash and newline")
    func helpEscaping() {
        #expect(PrometheusText.escapeHelp("a\\b\nc \"d\"") == "a\\\\b\\nc \"d\"")
    }

    @Test("the strict reader refuses what Prometheus would refuse")
    func readerRefusesBadLines() {
        let bad = [
            "quotawatch_x{path=\"a\\tb\"} 1", "quotawatch_x{path=\"a} 1", "quotawatch_x 1 2 3", "quotawatch_x inf",
            "9x 1", "quotawatch_x{9=\"a\"} 1", "quotawatch_x{a=\"1\",a=\"2\"} 1", "quotawatch_x 1\nquotawatch_x 2",
            "quotawatch_x 1\nquotawatch_y 1\nquotawatch_x 2", "quotawatch_x 1\n# TYPE quotawatch_x gauge",
            "# TYPE quotawatch_x gauges",
        ]
        for text in bad {
            #expect(throws: PrometheusExposition.ParseError.self, "\(text)") { try PrometheusExposition(text) }
        }
    }
}
