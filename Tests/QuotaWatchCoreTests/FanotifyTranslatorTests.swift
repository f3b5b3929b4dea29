import QuotaWatchCore
import Testing

@Suite("fanotify events into the tree's events")
struct FanotifyTranslatorTests {
    typealias F = FanotifyFixture
    let root = F.handle(1)
    let sub = F.handle(2)
    let outside = F.handle(9)
    let file = F.handle(20)

    func table(_ handle: FileHandleKey) -> Int32? {
        [root: 1, sub: 2][handle]
    }

    func translate(_ events: [FanotifyEvent]) -> FanotifyTranslator.Output {
        var translator = FanotifyTranslator()
        return translator.translate(events, watch: table)
    }

    func named(_ kind: FanotifyRecord.Kind, _ handle: FileHandleKey, _ name: String) -> FanotifyRecord {
        FanotifyRecord(kind: kind, handle: handle, name: Array(name.utf8))
    }

    @Test func entryEventsKeepTheirDirectoryAndName() {
        let output = translate([
            FanotifyEvent(mask: [.create, .onDirectory], records: [named(.directoryName, root, "d")]),
            FanotifyEvent(
                mask: [.modify, .closeWrite],
                records: [named(.directoryName, sub, "f"), FanotifyRecord(kind: .object, handle: file)]),
        ])
        #expect(
            output.changes == [
                FileSystemChange(watch: 1, kind: .created, name: Array("d".utf8), isDirectory: true),
                FileSystemChange(watch: 2, kind: [.modified, .closedAfterWrite], name: Array("f".utf8)),
            ])
        #expect(output.changedFiles.isEmpty)
    }

    /// `order: lru` marks a directory for its files' opens: an open is its own change (the
    /// last-open log takes it out of the batch, the write merged with it must still reach the
    /// tree), and a directory opened in it is no file used.
    @Test func anOpenIsItsOwnChangeAndOnlyAFilesOpenCounts() {
        let output = translate([
            FanotifyEvent(
                mask: [.open, .modify],
                records: [named(.directoryName, sub, "f"), FanotifyRecord(kind: .object, handle: file)]),
            FanotifyEvent(mask: [.open, .onDirectory], records: [named(.directoryName, sub, "d")]),
        ])
        #expect(
            output.changes == [
                FileSystemChange(watch: 2, kind: .modified, name: Array("f".utf8)),
                FileSystemChange(watch: 2, kind: .opened, name: Array("f".utf8)),
            ])
    }

    /// The kernel merges entry events on one name; either order may have happened, and the
    /// deletion first leaves the creation's stat to find what is there.
    @Test func aMergedCreateAndDeleteBecomesDeleteThenCreate() {
        let output = translate([FanotifyEvent(mask: [.create, .delete], records: [named(.directoryName, root, "x")])])
        #expect(
            output.changes == [
                FileSystemChange(watch: 1, kind: .removed, name: Array("x".utf8)),
                FileSystemChange(watch: 1, kind: .created, name: Array("x".utf8)),
            ])
    }

    @Test func aRenameBecomesAPairWithOneCookieEachTime() {
        let rename = FanotifyEvent(
            mask: .rename, records: [named(.oldDirectoryName, root, "a"), named(.newDirectoryName, sub, "b")])
        let output = translate([rename, rename])
        #expect(output.changes.count == 4)
        #expect(output.changes[0] == FileSystemChange(watch: 1, kind: .movedFrom, name: Array("a".utf8), cookie: 1))
        #expect(output.changes[1] == FileSystemChange(watch: 2, kind: .movedTo, name: Array("b".utf8), cookie: 1))
        #expect(output.changes[2].cookie == 2 && output.changes[3].cookie == 2)
    }

    @Test func aRenameAcrossTheRootsEdgeKeepsOnlyItsHalfInside() {
        let output = translate([
            FanotifyEvent(
                mask: [.rename, .onDirectory],
                records: [named(.oldDirectoryName, outside, "in"), named(.newDirectoryName, root, "in")]),
            FanotifyEvent(
                mask: .rename,
                records: [named(.oldDirectoryName, sub, "out"), named(.newDirectoryName, outside, "out")]),
        ])
        #expect(
            output.changes == [
                FileSystemChange(watch: 1, kind: .movedTo, name: Array("in".utf8), isDirectory: true, cookie: 1),
                FileSystemChange(watch: 2, kind: .movedFrom, name: Array("out".utf8), cookie: 2),
            ])
    }

    @Test func aDirectorysOwnEventsComeWithoutAName() {
        var translator = FanotifyTranslator()
        let output = translator.translate(
            [
                FanotifyEvent(mask: [.attrib, .onDirectory], records: [named(.directoryName, sub, ".")]),
                FanotifyEvent(mask: [.deleteSelf, .onDirectory], records: [named(.directoryName, root, ".")]),
            ], watch: table)
        #expect(
            output.changes == [
                FileSystemChange(watch: 2, kind: .attributes, isDirectory: true),
                FileSystemChange(watch: 1, kind: .selfRemoved, isDirectory: true),
                FileSystemChange(watch: 1, kind: .forgotten, isDirectory: true),
            ])
        #expect(output.removedDirectories == [root], "a removed directory's handle leaves the table")
    }

    /// Outside the table: dropped, except a file's change, handed on by its handle (a write
    /// through a hard link outside ROOT, a link count change that names no directory).
    @Test func eventsOutsideTheTableAreDroppedButFileChangesHandedOn() {
        let output = translate([
            FanotifyEvent(mask: .create, records: [named(.directoryName, outside, "n")]),
            FanotifyEvent(mask: [.attrib, .onDirectory], records: [named(.directoryName, outside, ".")]),
            FanotifyEvent(
                mask: .modify,
                records: [named(.directoryName, outside, "link"), FanotifyRecord(kind: .object, handle: file)]),
            FanotifyEvent(mask: .attrib, records: [FanotifyRecord(kind: .object, handle: file)]),
            FanotifyEvent(mask: .attrib, records: [FanotifyRecord(kind: .object, handle: F.handle(21))]),
            FanotifyEvent(mask: .moveSelf, records: [FanotifyRecord(kind: .object, handle: F.handle(22))]),
            FanotifyEvent(
                mask: [.attrib, .deleteSelf], records: [FanotifyRecord(kind: .object, handle: F.handle(23))]),
        ])
        #expect(output.changes.isEmpty)
        #expect(output.changedFiles == [file, F.handle(21)])
    }

    /// A file written through a name in a directory outside the table is told from one an
    /// event reached by handle alone (a link count change): with one link, the first has no
    /// name any tree could hold, and the reader drops it once resolved.
    @Test func filesChangedByNameOutsideAreToldFromThoseReachedByHandle() {
        let output = translate([
            FanotifyEvent(
                mask: .modify,
                records: [named(.directoryName, outside, "a"), FanotifyRecord(kind: .object, handle: file)]),
            FanotifyEvent(
                mask: .modify,
                records: [named(.directoryName, outside, "b"), FanotifyRecord(kind: .object, handle: F.handle(21))]),
            FanotifyEvent(mask: .attrib, records: [FanotifyRecord(kind: .object, handle: F.handle(21))]),
        ])
        #expect(output.changedFiles == [file, F.handle(21)])
        #expect(output.reachedWithoutName == [F.handle(21)])
    }

    @Test func anOverflowIsInotifysOverflow() {
        #expect(
            translate([FanotifyEvent(mask: .queueOverflow)]).changes == [.overflow])
    }
}
