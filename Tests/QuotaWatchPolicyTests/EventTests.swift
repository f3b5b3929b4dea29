import QuotaWatchCore
import QuotaWatchPolicy
import Testing

@Suite("policy events as JSON lines and hook events")
struct EventTests {
    let time = WallTime(millisecondsSinceEpoch: 1_796_166_245_123)
    /// A root whose bytes are not all UTF-8, as the engine spells it (``EscapedName``).
    let root = EscapedName.string(Array("/srv/app ".utf8) + [0xfe])

    @Test("ISO 8601 in UTC with milliseconds")
    func wallTime() {
        #expect(WallTime(millisecondsSinceEpoch: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(WallTime(millisecondsSinceEpoch: 951_782_400_001).iso8601 == "2000-02-29T00:00:00.001Z")
        #expect(WallTime(millisecondsSinceEpoch: -1).iso8601 == "1969-12-31T23:59:59.999Z")
        #expect(time.iso8601 == "2026-12-01T23:04:05.123Z")
    }

    @Test("quota events: sorted keys, the rule's size key, escaped path")
    func quota() {
        let path: [UInt8] = Array("Library/Caches/F".utf8) + [0xff]
        let event = PolicyEvent(
            .quota(
                state: .breach, path: path, used: 300, size: .allocated, limit: 200, effectiveLimit: 140,
                rule: "Library/Caches/*", level: .warning), time: time)
        #expect(
            event.jsonLine(root: root)
                == #"{"allocated":300,"effective_limit":140,"event":"quota_breach","level":"warning","limit":200,"#
                + #""path":"Library/Caches/F\\xff","root":"/srv/app \\xfe","rule":"Library/Caches/*","#
                + #""time":"2026-12-01T23:04:05.123Z"}"#)
        let apparent = PolicyEvent(
            .quota(
                state: .ok, path: Array("a".utf8), used: 5, size: .apparent, limit: 9, effectiveLimit: 9, rule: "a",
                level: .normal),
            time: time)
        #expect(apparent.jsonLine(root: root).contains(#""apparent":5"#) && apparent.kind == "quota_ok")
        let hook = event.hookEvent(root: root)
        #expect(hook.kind == "quota_breach" && hook.path == path)
        #expect(hook.json == Array(event.jsonLine(root: root).utf8))
        #expect(hook.environment.first?.name == "QUOTAWATCH_EVENT")
        let environment = Dictionary(uniqueKeysWithValues: hook.environment.map { ($0.name, $0.value) })
        #expect(environment["QUOTAWATCH_PATH"] == "Library/Caches/F\\xff")
        #expect(environment["QUOTAWATCH_ALLOCATED"] == "300")
        #expect(environment["QUOTAWATCH_LIMIT"] == "200")
        #expect(environment["QUOTAWATCH_EFFECTIVE_LIMIT"] == "140")
        #expect(environment["QUOTAWATCH_RULE"] == "Library/Caches/*")
        #expect(environment["QUOTAWATCH_LEVEL"] == "warning")
        #expect(environment["QUOTAWATCH_TIME"] == "2026-12-01T23:04:05.123Z")
        #expect(environment["QUOTAWATCH_ROOT"] == #"/srv/app \xfe"#)
    }

    @Test("level, leftover, forecast and hook_failed lines")
    func others() {
        let level = PolicyEvent(
            .level(from: .normal, to: .critical, free: 10, total: 1000, rootAllocated: 7), time: time)
        #expect(
            level.jsonLine(root: root)
                == #"{"event":"level","free":10,"from":"normal","root":"/srv/app \\xfe","root_allocated":7,"#
                + #""time":"2026-12-01T23:04:05.123Z","#
                + #""to":"critical","total":1000}"#)
        #expect(level.hookEvent(root: root).path == nil)
        let leftover = PolicyEvent(
            .leftover(
                path: Array("tmp/CFNetworkDownload_a.tmp".utf8), allocated: 4096, idle: .milliseconds(3_600_500),
                rule: "cfnetwork-download"),
            time: time)
        #expect(leftover.jsonLine(root: root).contains(#""idle_seconds":3600"#))
        #expect(leftover.jsonLine(root: root).contains(#""rule":"cfnetwork-download""#))
        let forecast = PolicyEvent(
            .forecast(path: Array("a".utf8), secondsToBreach: 599.6, bytesPerSecond: 1234.4, rule: "a"), time: time)
        #expect(
            forecast.jsonLine(root: root).contains(#""seconds_to_breach":600"#)
                && forecast.jsonLine(root: root).contains(#""bytes_per_second":1234"#))
        #expect(forecast.kind == "quota_forecast")
        // A limit near 2^64 and a slow growth forecast a breach beyond Int64's seconds.
        let far = PolicyEvent(
            .forecast(path: Array("a".utf8), secondsToBreach: 1.8e19, bytesPerSecond: .infinity, rule: "a"), time: time)
        #expect(
            far.jsonLine(root: root).contains(#""seconds_to_breach":9223372036854775807"#),
            "\(far.jsonLine(root: root))")
        let failed = PolicyEvent(
            .hookFailed(hook: "notify", failedEvent: "level", status: nil, signal: 9, standardErrorTail: "timed out\n"),
            time: time)
        #expect(
            failed.jsonLine(root: root)
                == #"{"event":"hook_failed","failed_event":"level","hook":"notify","root":"/srv/app \\xfe","signal":9,"#
                + #""status":null,"#
                + #""stderr_tail":"timed out\n","time":"2026-12-01T23:04:05.123Z"}"#)
        let environment = Dictionary(
            uniqueKeysWithValues: failed.hookEvent(root: root).environment.map { ($0.name, $0.value) })
        #expect(environment["QUOTAWATCH_STATUS"] == "" && environment["QUOTAWATCH_SIGNAL"] == "9")
    }

    @Test("leftover_gone names the path, the rule and why; every kind carries the root")
    func leftoverGone() {
        let gone = PolicyEvent(
            .leftoverGone(
                path: Array("tmp/CFNetworkDownload_a.tmp".utf8), rule: "cfnetwork-download", reason: .removed),
            time: time)
        #expect(
            gone.jsonLine(root: root)
                == #"{"event":"leftover_gone","path":"tmp/CFNetworkDownload_a.tmp","reason":"removed","#
                + #""root":"/srv/app \\xfe","rule":"cfnetwork-download","time":"2026-12-01T23:04:05.123Z"}"#)
        #expect(PolicyEvent.kinds.contains(gone.kind))
        let environment = Dictionary(
            uniqueKeysWithValues: gone.hookEvent(root: root).environment.map { ($0.name, $0.value) })
        #expect(environment["QUOTAWATCH_REASON"] == "removed" && environment["QUOTAWATCH_ROOT"] == #"/srv/app \xfe"#)
    }
}
