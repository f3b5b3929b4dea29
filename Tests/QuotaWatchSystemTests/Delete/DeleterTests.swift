import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@Suite("Deleter: checks on a real tree")
struct DeleterTests {
    @Test("a file is removed, its intent recorded before and its outcome after; freed is its allocation")
    func removesAFile() throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory(Array("cache".utf8))
        let identity = try fixture.makeFile(Array("cache/a.bin".utf8), bytes: 10_000)
        let journal = RecordingJournal()
        let outcome = try fixture.deleter().remove(Array("cache/a.bin".utf8), expecting: identity, journal: journal)
        guard case .removed(let removal) = outcome else {
            Issue.record("not removed: \(outcome)")
            return
        }
        #expect(removal.entries.map(\.path) == [Array("cache/a.bin".utf8)])
        #expect(removal.freedBytes >= 10_000 && removal.freedBytes == removal.entries[0].allocatedBytes)
        #expect(!removal.dryRun)
        #expect(journal.records == [.intent(Array("cache/a.bin".utf8)), .outcome(Array("cache/a.bin".utf8), nil)])
        #expect(try !fixture.exists(Array("cache/a.bin".utf8)))
    }

    @Test(
        "ROOT itself and paths that leave it are refused before any system call",
        arguments: [
            ("", SkipReason.root), (".", .root), ("/etc/passwd", .outsideRoot), ("../decoy/x", .outsideRoot),
            ("cache/../../decoy", .outsideRoot), ("cache//a", .outsideRoot), ("./cache", .outsideRoot),
        ])
    func refusesRootAndEscapes(path: String, reason: SkipReason) throws {
        let fixture = try DeleterFixture()
        let rootIdentity = try FileDescriptor.currentWorkingDirectory.openDirectory(fixture.rootPath.bytes)
        defer { rootIdentity.close() }
        let outcome = try fixture.deleter().remove(
            Array(path.utf8), expecting: FileIdentity(try rootIdentity.status()), journal: RecordingJournal())
        #expect(outcome == .skipped(reason))
        #expect(FileManager.default.fileExists(atPath: fixture.rootPath))
    }

    @Test("a name that now leads to another inode is skipped and kept")
    func changedInode() throws {
        let fixture = try DeleterFixture()
        let chosen = try fixture.makeFile(Array("a".utf8))
        try fixture.makeFile(Array("b".utf8))
        try check(rename(fixture.rootPath + "/b", fixture.rootPath + "/a"))
        let now = try fixture.identity(Array("a".utf8))!
        let journal = RecordingJournal()
        let outcome = try fixture.deleter().remove(Array("a".utf8), expecting: chosen, journal: journal)
        #expect(outcome == .skipped(.changedInode(expected: chosen, found: now)))
        #expect(try fixture.exists(Array("a".utf8)))
        #expect(journal.records.isEmpty)
    }

    @Test(
        "a directory in the path swapped for a symlink out of ROOT is never followed",
        arguments: [
            Deleter.WalkMethod.openat2, .perComponent,
        ])
    func symlinkInPath(walk: Deleter.WalkMethod) throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory(Array("cache".utf8))
        let identity = try fixture.makeFile(Array("cache/f".utf8))
        // The decoy holds a hard link to the very inode chosen: only the walk can tell them apart.
        try check(link(fixture.rootPath + "/cache/f", fixture.decoyPath + "/f"))
        try check(rename(fixture.rootPath + "/cache", fixture.rootPath + "/cache.moved"))
        try check(symlink(fixture.decoyPath, fixture.rootPath + "/cache"))
        let outcome = try fixture.deleter(walk: walk).remove(
            Array("cache/f".utf8), expecting: identity, journal: RecordingJournal())
        #expect(outcome == .skipped(.symlinkInPath(Array("cache".utf8))))
        #expect(FileManager.default.fileExists(atPath: fixture.decoyPath + "/f"))
    }

    @Test("a symlink itself is removed, never what it points to")
    func removesSymlinkNotTarget() throws {
        let fixture = try DeleterFixture()
        try fixture.writeFile(Array((fixture.decoyPath + "/target").utf8), bytes: 100)
        try check(symlink(fixture.decoyPath + "/target", fixture.rootPath + "/link"))
        let identity = try fixture.identity(Array("link".utf8))!
        let outcome = try fixture.deleter().remove(Array("link".utf8), expecting: identity, journal: RecordingJournal())
        guard case .removed = outcome else {
            Issue.record("not removed: \(outcome)")
            return
        }
        #expect(FileManager.default.fileExists(atPath: fixture.decoyPath + "/target"))
    }

    @Test("a file open for writing is refused with the writer's pid; closed, it goes")
    func openForWriting() throws {
        let fixture = try DeleterFixture()
        let identity = try fixture.makeFile(Array("CFNetworkDownload_1.tmp".utf8))
        let writer = open(fixture.rootPath + "/CFNetworkDownload_1.tmp", O_WRONLY | O_CLOEXEC)
        try check(writer)
        let deleter = try fixture.deleter()
        let path = Array("CFNetworkDownload_1.tmp".utf8)
        let outcome = deleter.remove(path, expecting: identity, journal: RecordingJournal())
        guard case .skipped(.openForWriting(let writerProcess, nil)) = outcome else {
            Issue.record("not kept as open for writing: \(outcome)")
            return
        }
        #expect(isThisProcessOrItsChild(writerProcess))
        #expect(try fixture.exists(path))
        close(writer)
        guard case .removed = deleter.remove(path, expecting: identity, journal: RecordingJournal()) else {
            Issue.record("not removed after close")
            return
        }
    }

    @Test("the protection predicate is asked first, for the path and for every entry of a tree")
    func protection() throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory(Array("Documents".utf8))
        try fixture.makeDirectory(Array("Documents/Inbox".utf8))
        let keep = try fixture.makeFile(Array("Documents/keep".utf8))
        try fixture.makeFile(Array("Documents/Inbox/old".utf8))
        let documents = try fixture.identity(Array("Documents".utf8))!
        let deleter = try fixture.deleter { path in
            path.starts(with: Array("Documents".utf8)) && !path.starts(with: Array("Documents/Inbox".utf8))
                && path != Array("Documents".utf8)
        }
        #expect(
            deleter.remove(Array("Documents/keep".utf8), expecting: keep, journal: RecordingJournal())
                == .skipped(.protected))
        let outcome = deleter.remove(Array("Documents".utf8), expecting: documents, journal: RecordingJournal())
        guard case .removed(let removal) = outcome else {
            Issue.record("nothing removed: \(outcome)")
            return
        }
        #expect(removal.entries.map(\.path).contains(Array("Documents/Inbox/old".utf8)))
        #expect(removal.kept.contains(KeptEntry(path: Array("Documents/keep".utf8), reason: .protected)))
        #expect(try fixture.exists(Array("Documents/keep".utf8)))
        #expect(try !fixture.exists(Array("Documents/Inbox".utf8)))
    }

    @Test("a directory tree goes bottom-up; hard links inside it free their inode once, with the last name")
    func directoryTree() throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory(Array("t".utf8))
        try fixture.makeDirectory(Array("t/sub".utf8))
        try fixture.makeFile(Array("t/sub/a".utf8), bytes: 8192)
        try check(link(fixture.rootPath + "/t/sub/a", fixture.rootPath + "/t/b"))
        try fixture.makeFile(Array("t/c".utf8), bytes: 4096)
        try fixture.makeFile(Array("outside".utf8), bytes: 4096)
        try check(link(fixture.rootPath + "/outside", fixture.rootPath + "/t/d"))
        let identity = try fixture.identity(Array("t".utf8))!
        let journal = RecordingJournal()
        let outcome = try fixture.deleter().remove(Array("t".utf8), expecting: identity, journal: journal)
        guard case .removed(let removal) = outcome else {
            Issue.record("not removed: \(outcome)")
            return
        }
        let paths = removal.entries.map { String(decoding: $0.path, as: UTF8.self) }
        #expect(Set(paths) == ["t", "t/sub", "t/sub/a", "t/b", "t/c", "t/d"])
        #expect(paths.last == "t")
        #expect(paths.firstIndex(of: "t/sub/a")! < paths.firstIndex(of: "t/sub")!)
        let allocation = { (name: String) in removal.entries.first { $0.path == Array(name.utf8) }!.allocatedBytes }
        // t/d's inode keeps its name "outside": nothing of it is freed.
        #expect(removal.freedBytes == allocation("t") + allocation("t/sub") + allocation("t/sub/a") + allocation("t/c"))
        #expect(try fixture.exists(Array("outside".utf8)))
        #expect(try !fixture.exists(Array("t".utf8)))
        #expect(journal.records.count == 12)
    }

    @Test("a dry run checks everything and lists exactly what a real run then removes")
    func dryRunIsExact() throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory(Array("t".utf8))
        try fixture.makeDirectory(Array("t/x".utf8))
        for name in ["t/1", "t/2", "t/x/3", "t/x/held"] { try fixture.makeFile(Array(name.utf8)) }
        let writer = open(fixture.rootPath + "/t/x/held", O_WRONLY | O_CLOEXEC)
        try check(writer)
        defer { close(writer) }
        let identity = try fixture.identity(Array("t".utf8))!
        let journal = RecordingJournal()
        let dry = try fixture.deleter(dryRun: true).remove(Array("t".utf8), expecting: identity, journal: journal)
        #expect(journal.records.isEmpty)
        #expect(try fixture.exists(Array("t/1".utf8)) && fixture.exists(Array("t/x/3".utf8)))
        let real = try fixture.deleter().remove(Array("t".utf8), expecting: identity, journal: journal)
        guard case .removed(let wouldRemove) = dry, case .removed(let removed) = real else {
            Issue.record("dry \(dry), real \(real)")
            return
        }
        #expect(wouldRemove.dryRun && !removed.dryRun)
        #expect(wouldRemove.entries == removed.entries)
        #expect(wouldRemove.freedBytes == removed.freedBytes)
        #expect(wouldRemove.kept == removed.kept)
        #expect(
            removed.kept.contains {
                guard case .openForWriting(let writer, nil) = $0.reason else { return false }
                return $0.path == Array("t/x/held".utf8) && isThisProcessOrItsChild(writer)
            }, "\(removed.kept)")
        #expect(try fixture.exists(Array("t/x/held".utf8)))
    }

    @Test("names that are not UTF-8 are found and removed exactly, their neighbours kept")
    func rawByteNames() throws {
        let fixture = try DeleterFixture()
        let directory: [UInt8] = [0x63, 0xff, 0x2e, 0x64]  // "c\xff.d"
        let name: [UInt8] = [0x66, 0xc3, 0x28, 0x5c]  // "f", a broken two-byte sequence, "\"
        let neighbour: [UInt8] = [0x66, 0xc3, 0x28]
        try fixture.makeDirectory(directory)
        let identity = try fixture.makeFile(directory + [0x2f] + name)
        try fixture.makeFile(directory + [0x2f] + neighbour)
        let outcome = try fixture.deleter().remove(
            directory + [0x2f] + name, expecting: identity, journal: RecordingJournal())
        guard case .removed(let removal) = outcome else {
            Issue.record("not removed: \(outcome)")
            return
        }
        #expect(removal.entries[0].path == directory + [0x2f] + name)
        #expect(try !fixture.exists(directory + [0x2f] + name))
        #expect(try fixture.exists(directory + [0x2f] + neighbour))
    }

    @Test("when the intent cannot be recorded, nothing is removed and the journal's error is returned")
    func journalRefusal() throws {
        let fixture = try DeleterFixture()
        let identity = try fixture.makeFile(Array("a".utf8))
        let journal = RecordingJournal()
        journal.refuseIntents()
        let outcome = try fixture.deleter().remove(Array("a".utf8), expecting: identity, journal: journal)
        #expect(outcome == .notRecorded(DeletionJournalError(message: "the test journal refuses")))
        #expect(try fixture.exists(Array("a".utf8)))
    }

    @Test("a name that is gone is reported as gone")
    func gone() throws {
        let fixture = try DeleterFixture()
        let identity = FileIdentity(device: 1, inode: 2)
        #expect(
            try fixture.deleter().remove(Array("nope/x".utf8), expecting: identity, journal: RecordingJournal())
                == .skipped(.gone(Array("nope".utf8))))
        #expect(
            try fixture.deleter().remove(Array("x".utf8), expecting: identity, journal: RecordingJournal())
                == .skipped(.gone(Array("x".utf8))))
    }
}
