import QuotaWatchCore
import QuotaWatchView
import Testing

/// The expanded event log (`l`): scrolled with PgUp, PgDn, Home and End, wrapped at word
/// boundaries with a number kept beside its unit.
@Suite struct WatchLogScrollTests {
    private let layout = WatchLayout(rows: 24, columns: 80, width: .builtIn)

    private func modelWithLog(_ count: Int) -> WatchModel {
        var model = WatchModel()
        model.receive(frame([("a", 100)]), listRows: 10)
        for index in 1...count {
            model.receive(
                EventLine(
                    time: "2026-12-01T00:45:00+00:00", kind: "level", details: "event number \(index)",
                    severity: .info))
        }
        return model
    }

    /// A key as the screen loop applies it: handled, then the log's offset kept within the log.
    private func press(_ key: TerminalKey, _ model: inout WatchModel) {
        _ = model.handle(key, listRows: layout.listRows(model))
        model.state.logOffset = min(model.state.logOffset, layout.maximumLogOffset(model))
    }

    private func body(_ model: WatchModel) -> [String] {
        Array(layout.screen(model, now: 0).map(\.text)[4..<23])
    }

    @Test func pageUpHomeAndEndMoveTheExpandedLog() {
        var model = modelWithLog(40)
        press(.character("l"), &model)
        var shown = body(model)
        #expect(shown.last?.hasSuffix("event number 40") == true, "\(shown)")
        #expect(layout.screen(model, now: 0)[3].text.contains("lines 22-40 of 40"))

        press(.pageUp, &model)
        shown = body(model)
        #expect(shown.last?.hasSuffix("event number 40") == false, "PgUp did not move: \(shown)")
        #expect(shown.contains { $0.hasSuffix("event number 21") }, "\(shown)")

        press(.home, &model)
        shown = body(model)
        #expect(shown.first?.hasSuffix("event number 1") == true, "Home: \(shown)")
        press(.pageDown, &model)
        #expect(body(model).first?.hasSuffix("event number 1") == false)
        press(.end, &model)
        #expect(body(model).last?.hasSuffix("event number 40") == true)
    }

    @Test func aNumberStaysWithItsUnitWhenWrapped() {
        var model = WatchModel()
        model.receive(frame([("a", 100)]), listRows: 10)
        // At 80 columns the rate's number ends the first line unless it is kept with its unit.
        let details = String(repeating: "x", count: 50) + " rate 993.0 KB/s, then more words"
        model.receive(EventLine(time: "2026-12-01T00:45:00+00:00", kind: "growth", details: details, severity: .info))
        press(.character("l"), &model)
        let shown = body(model).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(shown.contains { $0.contains("993.0 KB/s,") }, "the number was cut from its unit: \(shown)")
        #expect(!shown.contains { $0.hasSuffix("993.0") })
    }
}
