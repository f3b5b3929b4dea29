import Glibc
import QuotaWatchCore
import QuotaWatchTestSupport
import Synchronization
import Testing

@testable import QuotaWatchSystem

@Suite("Deleter groups: one sync of intents and one /proc look per group, every check kept")
struct DeleterGroupTests {
    /// Records what a group journal is told, and at the moment the intents are recorded
    /// whether each of their names is still there: they must all be, no unlink comes first.
    final class GroupRecorder: GroupDeletionJournal {
        struct State {
            var intentCalls: [[[UInt8]]] = []
            var presentAtIntent: [Bool] = []
            var outcomes: [[UInt8]: SkipReason?] = [:]
            var refuse = false
        }

        let fixture: DeleterFixture
        let singles = RecordingJournal()
        private let state = Mutex(State())

        init(fixture: DeleterFixture, refuse: Bool = false) {
            self.fixture = fixture
            state.withLock { $0.refuse = refuse }
        }

        var snapshot: State { state.withLock { $0 } }

        func recordIntents(_ entries: [(request: Int, entry: DeletionEntry)]) throws(DeletionJournalError) {
            if state.withLock({ $0.refuse }) { throw DeletionJournalError(message: "the test journal refuses") }
            let present = entries.map { (try? fixture.exists($0.entry.path)) == true }
            state.withLock { state in
                state.intentCalls.append(entries.map(\.entry.path))
                state.presentAtIntent += present
            }
        }

        func recordOutcome(request: Int, entry: DeletionEntry, failure: SkipReason?) {
            state.withLock { $0.outcomes[entry.path] = failure }
        }

        func single(request: Int) -> any DeletionJournal { singles }
    }

    /// An outcome without the dry-run flag, to compare a dry run with a real one.
    static func summary(_ outcome: DeletionOutcome) -> String {
        switch outcome {
        case .removed(let removal): "removed \(removal.entries.map { String(decoding: $0.path, as: UTF8.self) })"
        case .skipped(let reason): "skipped \(reason)"
        case .failed(let error): "failed \(error)"
        case .notRecorded(let error): "not recorded \(error)"
        }
    }

    @Test("a group refuses what one removal refuses, dry run exact; intents all recorded before any unlink")
    func checksKept() throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory(Array("a".utf8))
        try fixture.makeDirectory(Array("tree".utf8))
        try fixture.makeDirectory(Array("keep".utf8))
        var removals: [GroupedRemoval] = []
        for index in 0..<30 {
            let path = Array("a/\(index)".utf8)
            removals.append(GroupedRemoval(path: path, identity: try fixture.makeFile(path)))
        }
        let busy = try fixture.makeFile(Array("busy".utf8))
        let other = try fixture.makeFile(Array("other".utf8))
        try fixture.makeFile(Array("changed".utf8))
        let protected = try fixture.makeFile(Array("keep/p".utf8))
        let tree = try #require(try fixture.identity(Array("tree".utf8)))
        try fixture.makeFile(Array("tree/inner".utf8))
        try check(withPath(fixture.absolute(Array("ln".utf8))) { symlink("a", $0) })
        removals += [
            GroupedRemoval(path: Array("busy".utf8), identity: busy),
            GroupedRemoval(path: Array("changed".utf8), identity: other),
            GroupedRemoval(path: Array("keep/p".utf8), identity: protected),
            GroupedRemoval(path: Array("ln/1".utf8), identity: removals[1].identity),
            GroupedRemoval(path: Array("missing".utf8), identity: other),
            GroupedRemoval(path: Array("../decoy".utf8), identity: other),
            GroupedRemoval(path: Array("tree".utf8), identity: tree),
        ]
        let looks = Mutex<[Set<FileIdentity>]>([])
        func deleter(dryRun: Bool) throws -> Deleter {
            try Deleter(
                root: fixture.root, dryRun: dryRun, isProtected: { $0.starts(with: Array("keep/".utf8)) },
                openWriter: { _ throws(Errno) in .noWriter },
                groupWriters: { identities throws(Errno) in
                    looks.withLock { $0.append(identities) }
                    var findings: [FileIdentity: WriterFinding] = [:]
                    for identity in identities {
                        findings[identity] =
                            identity == busy ? .writer(OpenWriters.Writer(processID: 4242, descriptor: 7)) : .noWriter
                    }
                    return findings
                })
        }
        let before = TempTree.namesAndSizes(below: fixture.rootPath)
        let dry = try deleter(dryRun: true).removeGroup(removals, journal: GroupRecorder(fixture: fixture))
        #expect(TempTree.namesAndSizes(below: fixture.rootPath) == before)
        let journal = GroupRecorder(fixture: fixture)
        let real = try deleter(dryRun: false).removeGroup(removals, journal: journal)
        #expect(dry.map(Self.summary) == real.map(Self.summary))

        let expectedFiles = (0..<30).map { "removed [\"a/\($0)\"]" }
        #expect(Array(real.map(Self.summary).prefix(30)) == expectedFiles)
        #expect(real[30] == .skipped(.openForWriting(processID: 4242, threadID: nil)))
        #expect(
            real[31]
                == .skipped(
                    .changedInode(expected: other, found: try #require(try fixture.identity(Array("changed".utf8))))))
        #expect(real[32] == .skipped(.protected))
        #expect(real[33] == .skipped(.symlinkInPath(Array("ln".utf8))))
        #expect(real[34] == .skipped(.gone(Array("missing".utf8))))
        #expect(real[35] == .skipped(.outsideRoot))
        #expect(Self.summary(real[36]) == "removed [\"tree/inner\", \"tree\"]")

        // One look at /proc for the group's files (a dry run and a real run: two), one sync.
        #expect(looks.withLock { $0.count } == 2)
        #expect(looks.withLock { $0.last?.count } == 31)
        let recorded = journal.snapshot
        #expect(recorded.intentCalls.count == 1)
        #expect(recorded.intentCalls.first?.count == 30)
        #expect(recorded.presentAtIntent.count == 30 && recorded.presentAtIntent.allSatisfy { $0 })
        #expect(recorded.outcomes.count == 30 && recorded.outcomes.values.allSatisfy { $0 == nil })
        #expect(try fixture.exists(Array("busy".utf8)))
        #expect(try fixture.exists(Array("keep/p".utf8)))
        #expect(try !fixture.exists(Array("tree".utf8)))
    }

    @Test("more parent directories than a group holds open make more groups; every file still goes")
    func manyParents() throws {
        let fixture = try DeleterFixture()
        var removals: [GroupedRemoval] = []
        for index in 0..<(Deleter.groupParents + 6) {
            try fixture.makeDirectory(Array("d\(index)".utf8))
            let path = Array("d\(index)/f".utf8)
            removals.append(GroupedRemoval(path: path, identity: try fixture.makeFile(path)))
        }
        let journal = GroupRecorder(fixture: fixture)
        let outcomes = try fixture.deleter(checkWriters: false).removeGroup(removals, journal: journal)
        #expect(outcomes.allSatisfy { if case .removed = $0 { true } else { false } })
        #expect(journal.snapshot.intentCalls.map(\.count) == [Deleter.groupParents, 6])
        #expect(journal.snapshot.presentAtIntent.allSatisfy { $0 })
    }

    @Test("an intent the journal refuses removes nothing of the group, and every later removal says so")
    func refusedIntents() throws {
        let fixture = try DeleterFixture()
        var removals: [GroupedRemoval] = []
        for index in 0..<5 {
            let path = Array("f\(index)".utf8)
            removals.append(GroupedRemoval(path: path, identity: try fixture.makeFile(path)))
        }
        let outcomes = try fixture.deleter(checkWriters: false).removeGroup(
            removals, journal: GroupRecorder(fixture: fixture, refuse: true))
        #expect(
            outcomes
                == Array(repeating: .notRecorded(DeletionJournalError(message: "the test journal refuses")), count: 5))
        for index in 0..<5 { #expect(try fixture.exists(Array("f\(index)".utf8))) }
    }

    @Test("with /proc as the writer check, a file this process holds open for writing is kept, the rest go")
    func procGroupCheck() throws {
        let fixture = try DeleterFixture()
        let written = try fixture.makeFile(Array("written".utf8))
        let free = try fixture.makeFile(Array("free".utf8))
        let descriptor = try withPath(fixture.absolute(Array("written".utf8))) { open($0, O_WRONLY | O_CLOEXEC) }
        try check(descriptor)
        defer { close(descriptor) }
        let outcomes = try fixture.deleter().removeGroup(
            [
                GroupedRemoval(path: Array("written".utf8), identity: written),
                GroupedRemoval(path: Array("free".utf8), identity: free),
            ],
            journal: GroupRecorder(fixture: fixture))
        guard case .skipped(.openForWriting(let writer, nil)) = outcomes[0] else {
            Issue.record("not kept as open for writing: \(outcomes[0])")
            return
        }
        #expect(isThisProcessOrItsChild(writer))
        #expect(Self.summary(outcomes[1]) == "removed [\"free\"]")
    }
}
