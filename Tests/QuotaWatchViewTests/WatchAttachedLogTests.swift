import QuotaWatchCore
import QuotaWatchView
import Testing

/// The attached view's log as the session fills it: the daemon's remembered events, oldest
/// first, then the greeting that says where they end, then the live events.
@Suite struct WatchAttachedLogTests {
    static func parse(_ json: String) throws -> EventLine {
        try #require(EventLine.parse(json, receivedAt: fixtureNow, utcOffset: 0, format: .decimal))
    }

    @Test func eventsFromBeforeAttachingComeFirstAndTheGreetingSaysWhereTheyEnd() throws {
        var model = WatchModel()
        model.attachedTo = "/run/qw.sock"
        model.receive(frame([("Caches", 2_000_000)], seconds: 0), listRows: 10)
        let earlier = [
            #"{"allocated":4096,"backend":"inotify","dirs":3,"event":"ready","files":1,"seconds":0.01,"time":"2026-12-01T00:30:00.000Z"}"#,
            #"{"allocated":2000000,"effective_limit":1000000,"event":"quota_breach","level":"normal","limit":1000000,"path":"Caches/Feed","rule":"Caches/*","time":"2026-12-01T00:31:00.000Z"}"#,
        ]
        for line in earlier { model.receive(try Self.parse(line)) }
        model.receive(try Self.parse(#"{"capacity":4096,"event":"subscribed","recent":2,"root":"/data/app"}"#))
        let live =
            #"{"allocated":500000,"effective_limit":1000000,"event":"quota_ok","level":"normal","limit":1000000,"path":"Caches/Feed","rule":"Caches/*","time":"2026-12-01T00:45:01.000Z"}"#
        model.receive(try Self.parse(live))
        #expect(model.log.map(\.kind) == ["ready", "quota_breach", "subscribed", "quota_ok"])
        // The remembered events keep their own times, not the moment they arrived.
        #expect(model.log[1].time.hasPrefix("2026-12-01T00:31:00"))
        let screen = layout80.screen(model, now: fixtureNow).map(\.text).joined(separator: "\n")
        #expect(screen.contains("00:31:00 quota_breach Caches/Feed 2.0 MB allocated"), "\(screen)")
        #expect(screen.contains("subscribed the 2 events above came before this view attached"))
        #expect(screen.contains("00:45:01 quota_ok Caches/Feed"))
    }

    @Test func aDaemonWithNothingRememberedOrTooOldToAskSaysOnlyThatTheLiveEventsFollow() throws {
        for greeting in [
            #"{"capacity":4096,"event":"subscribed","recent":0,"root":"/data/app"}"#,
            #"{"capacity":4096,"event":"subscribed","root":"/data/app"}"#,
        ] {
            let line = try Self.parse(greeting)
            #expect(line.details == "to the daemon's events from now on (4096 kept if this view lags)")
        }
        let one = try Self.parse(#"{"capacity":4096,"event":"subscribed","recent":1}"#)
        #expect(one.details.hasPrefix("the event above came before this view attached; live from here on"))
    }
}
