import QuotaWatchPolicy
import Testing

@Suite("QuotaBook: rules found by the index, states, budgets and level changes")
struct QuotaBookTests {
    let time = WallTime(millisecondsSinceEpoch: 0)

    func config() throws -> PolicyConfig {
        var config = PolicyConfig()
        config.quotas = [QuotaRule(glob: try PathGlob("Library/Caches/*"), limit: 1000)]
        config.budgets = [
            BudgetRule(glob: try PathGlob("tmp/*"), budget: 1000, weights: [Array("tmp/a".utf8): 3], activityWeight: 0)
        ]
        return config
    }

    func attach(_ book: inout QuotaBook<Int>, _ key: Int, _ path: String) {
        let placement = book.index.placement(of: Array(path.utf8))
        book.attach(key, path: Array(path.utf8), rules: placement.matched, at: .seconds(0))
    }

    func usage(_ allocated: UInt64) -> DirectoryUsage { DirectoryUsage(allocated: allocated, apparent: allocated / 2) }

    @Test("a breach is reported once with the rule's fields, and a level change rescales every quota")
    func levels() throws {
        var book = QuotaBook<Int>(config: try config())
        attach(&book, 1, "Library/Caches/feed")
        attach(&book, 2, "Library/Caches/img")
        #expect(book.directoryCount == 2)
        let breach = book.evaluate(1, usage: usage(1200), level: .normal, at: .seconds(1), time: time)
        #expect(breach.map(\.kind) == ["quota_breach"])
        #expect(breach.first?.jsonLine(root: "/r").contains(#""effective_limit":1000"#) == true)
        #expect(breach.first?.jsonLine(root: "/r").contains(#""rule":"Library/Caches/*""#) == true)
        #expect(book.evaluate(1, usage: usage(1300), level: .normal, at: .seconds(2), time: time).isEmpty)
        #expect(book.evaluate(2, usage: usage(500), level: .normal, at: .seconds(2), time: time).isEmpty)
        // Critical scales 1000 to 400: img breaches though nothing wrote to it.
        let rescaled = book.evaluateAll(
            usage: { $0 == 1 ? usage(1300) : usage(500) }, level: .critical, at: .seconds(3), time: time)
        #expect(rescaled.map(\.kind) == ["quota_breach"])
        #expect(rescaled.first?.path == Array("Library/Caches/img".utf8))
        #expect(rescaled.first?.jsonLine(root: "/r").contains(#""level":"critical""#) == true)
    }

    @Test("a budget is split by weight among the members there are now")
    func budgets() throws {
        var book = QuotaBook<Int>(config: try config())
        attach(&book, 10, "tmp/a")
        attach(&book, 11, "tmp/b")
        let rule = 1
        #expect(book.effectiveLimit(rule: rule, for: 10, level: .normal, at: .seconds(0)) == 750)
        #expect(book.effectiveLimit(rule: rule, for: 11, level: .normal, at: .seconds(0)) == 250)
        #expect(
            book.evaluate(11, usage: usage(300), level: .normal, at: .seconds(1), time: time).map(\.kind) == [
                "quota_breach"
            ])
        book.detach(10)
        #expect(book.effectiveLimit(rule: rule, for: 11, level: .normal, at: .seconds(0)) == 1000)
        #expect(
            book.evaluate(11, usage: usage(300), level: .normal, at: .seconds(2), time: time).map(\.kind) == [
                "quota_ok"
            ])
    }

    @Test("a whole group evaluated or listed at once gets the shares each member gets alone")
    func groupSharesAtOnce() throws {
        var config = PolicyConfig()
        var weights: [[UInt8]: Double] = [:]
        for index in stride(from: 0, to: 2_000, by: 7) { weights[Array("tmp/m\(index)".utf8)] = Double(index % 5) }
        config.budgets = [
            BudgetRule(glob: try PathGlob("tmp/*"), budget: 10_000_000, weights: weights, activityWeight: 0.5)
        ]
        var book = QuotaBook<Int>(config: config)
        for index in 0..<2_000 {
            attach(&book, index, "tmp/m\(index)")
            for _ in 0..<(index % 3) { book.recordChange(index, at: .seconds(Double(index % 11))) }
        }
        let moment = Moment.seconds(20)
        let alone = (0..<2_000).map { book.effectiveLimit(rule: 0, for: $0, level: .warning, at: moment) }
        #expect(Set(alone).count > 3, "the shares differ, so a mix-up would show")
        let rows = book.rows(level: .warning, at: moment)
        let byPath = Dictionary(uniqueKeysWithValues: rows.map { (String(decoding: $0.path, as: UTF8.self), $0) })
        #expect((0..<2_000).allSatisfy { byPath["tmp/m\($0)"]?.effectiveLimit == alone[$0] })
        // Everyone far over its share: every breach names the limit it alone would get.
        let events = book.evaluateAll(usage: { _ in usage(20_000_000) }, level: .warning, at: moment, time: time)
        #expect(events.count == 2_000)
        for event in events {
            guard case .quota(_, let path, _, _, _, let effective, _, _) = event.detail,
                let index = Int(String(decoding: path.dropFirst(5), as: UTF8.self))
            else {
                Issue.record("not a quota event: \(event.jsonLine(root: "/r"))")
                continue
            }
            #expect(effective == alone[index])
        }
    }

    @Test("a renamed directory keeps its state for the rules it still matches")
    func rename() throws {
        var book = QuotaBook<Int>(config: try config())
        attach(&book, 1, "Library/Caches/feed")
        #expect(
            book.evaluate(1, usage: usage(900), level: .normal, at: .seconds(1), time: time).map(\.kind) == [
                "quota_warning"
            ])
        attach(&book, 1, "Library/Caches/feed2")
        #expect(book.evaluate(1, usage: usage(900), level: .normal, at: .seconds(2), time: time).isEmpty)
        attach(&book, 1, "Documents/feed")
        #expect(book.directoryCount == 0, "no rule matches there any more")
        let rows = book.rows(level: .normal, at: .seconds(3))
        #expect(rows.isEmpty)
    }

    @Test("status rows show usage, limits, state and the time since the last change")
    func rows() throws {
        var book = QuotaBook<Int>(config: try config())
        attach(&book, 1, "Library/Caches/feed")
        book.recordChange(1, at: .seconds(5))
        _ = book.evaluate(1, usage: usage(850), level: .warning, at: .seconds(5), time: time)
        let rows = book.rows(level: .warning, at: .seconds(65))
        #expect(rows.count == 1)
        #expect(rows.first?.used == 850 && rows.first?.effectiveLimit == 700 && rows.first?.state == .breach)
        #expect(rows.first?.sinceLastChange == .seconds(60))
    }
}
