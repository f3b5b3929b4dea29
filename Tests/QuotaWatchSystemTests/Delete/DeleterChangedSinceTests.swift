import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// A file chosen for being idle (a leftover, an expired file) carries the ctime it had then;
/// a write between the choice and the unlink keeps it, alone and in a group.
@Suite("Deleter: a file changed since it was chosen as idle is kept")
struct DeleterChangedSinceTests {
    private func chosen(_ fixture: DeleterFixture, _ relative: [UInt8]) throws -> FileIdentity {
        let status = try fixture.root.status(of: relative)
        return FileIdentity(device: status.device, inode: status.inode, unchangedSince: status.changedNanoseconds)
    }

    /// Appends to the file with a ctime at least one tick later than `identity`'s.
    private func writeAgain(_ fixture: DeleterFixture, _ relative: [UInt8], after identity: FileIdentity) throws {
        var ctime: Int64 = .min
        while ctime <= identity.unchangedSince! {
            try fixture.writeFile(fixture.absolute(relative), bytes: 6000)
            ctime = try fixture.root.status(of: relative).changedNanoseconds
        }
    }

    @Test("one file: written after the choice, it is kept as changed_since_chosen; untouched, it goes")
    func single() throws {
        let fixture = try DeleterFixture()
        let written = Array("CFNetworkDownload_1.tmp".utf8)
        let idle = Array("CFNetworkDownload_2.tmp".utf8)
        try fixture.makeFile(written)
        try fixture.makeFile(idle)
        let writtenIdentity = try chosen(fixture, written)
        let idleIdentity = try chosen(fixture, idle)
        try writeAgain(fixture, written, after: writtenIdentity)
        let deleter = try fixture.deleter(checkWriters: false)
        #expect(
            deleter.remove(written, expecting: writtenIdentity, journal: RecordingJournal())
                == .skipped(.changedSinceChosen))
        #expect(try fixture.exists(written))
        guard case .removed = deleter.remove(idle, expecting: idleIdentity, journal: RecordingJournal()) else {
            Issue.record("the idle file was not removed")
            return
        }
        #expect(SkipReason.changedSinceChosen.code == "changed_since_chosen")
    }

    @Test("in a group: only the file written after the choice is kept")
    func group() throws {
        let fixture = try DeleterFixture()
        let names = (1...3).map { Array("f\($0)".utf8) }
        for name in names { try fixture.makeFile(name) }
        let identities = try names.map { try chosen(fixture, $0) }
        try writeAgain(fixture, names[1], after: identities[1])
        let outcomes = try fixture.deleter(checkWriters: false).removeGroup(
            zip(names, identities).map { GroupedRemoval(path: $0, identity: $1) },
            journal: DeleterGroupTests.GroupRecorder(fixture: fixture))
        #expect(outcomes[1] == .skipped(.changedSinceChosen))
        #expect(try fixture.exists(names[1]))
        #expect(try !fixture.exists(names[0]) && !fixture.exists(names[2]))
    }
}
