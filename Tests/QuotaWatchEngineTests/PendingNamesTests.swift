import QuotaWatchCore
import Testing

@testable import QuotaWatchEngine

/// The names a flush stats, with the moment of each one's latest write: the write decides the
/// late re-stats only once the stat has shown whether the allocation can still change.
@Suite("pending names and their writes")
struct PendingNamesTests {
    private func name(_ text: String, in directory: UInt32 = 0) -> PendingName {
        PendingName(directory: DirectoryID(rawValue: directory), name: Array(text.utf8))
    }

    private func contents(_ names: PendingNames) -> [String: UInt64?] {
        Dictionary(uniqueKeysWithValues: names.map { (String(decoding: $0.name.name, as: UTF8.self), $0.writtenAt) })
    }

    @Test func aWriteStaysThroughLaterStatsAndTheLatestWriteCounts() {
        var names = PendingNames()
        names.written(name("a"), at: 10)
        names.insert(name("a"))
        names.insert(name("b"))
        names.written(name("c"), at: 10)
        names.insert(name("a"))
        names.written(name("a"), at: 20)
        names.insert(name("c"))
        #expect(contents(names) == ["a": 20, "b": nil, "c": 10])
        #expect(names.count == 3)
    }

    @Test func theSameNameInAnotherDirectoryIsAnotherName() {
        var names = PendingNames()
        names.written(name("a", in: 1), at: 5)
        names.insert(name("a", in: 2))
        #expect(names.count == 2)
        #expect(names.map(\.writtenAt).sorted { ($0 ?? 0) < ($1 ?? 0) } == [nil, 5])
    }

    @Test func takingAWriteLeavesTheNamePendingUnwrittenAndTheNextWriteCountsAgain() {
        var names = PendingNames()
        names.written(name("a"), at: 7)
        #expect(names.takeWrite(of: name("a")) == 7)
        #expect(names.takeWrite(of: name("a")) == nil, "taken once")
        #expect(contents(names) == ["a": nil])
        // The last name recorded is remembered: a write at the same moment must not be taken for
        // the one already taken.
        names.written(name("a"), at: 7)
        #expect(contents(names) == ["a": 7])
        #expect(names.takeWrite(of: name("missing")) == nil)
    }

    @Test func takeAllEmptiesAndForgetsTheLastName() {
        var names = PendingNames()
        names.written(name("a"), at: 3)
        let taken = names.takeAll()
        #expect(names.isEmpty && contents(taken) == ["a": 3])
        names.written(name("a"), at: 3)
        #expect(contents(names) == ["a": 3], "recorded again after the take, though it was the last name")
        names.insert(name("b"))
        names.formUnion([name("b"), name("c")])
        #expect(contents(names) == ["a": 3, "b": nil, "c": nil])
    }
}
