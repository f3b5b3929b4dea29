import QuotaWatchCore
import Testing

/// Writes to files born outside the table are dropped unresolved, and never those of a file
/// that has (or may have) a name in the tree: each sequence as the kernel queues it on 6.18
/// (`FAN_REPORT_DFID_NAME | FAN_REPORT_FID | FAN_REPORT_TARGET_FID`, merges included).
@Suite("files born outside the tree")
struct OutsideBornFilesTests {
    typealias F = FanotifyFixture
    let root = F.handle(1)
    let outside = F.handle(9)
    let otherOutside = F.handle(10)
    let file = F.handle(20)

    func table(_ handle: FileHandleKey) -> Int32? { [root: 1][handle] }

    func named(_ kind: FanotifyRecord.Kind, _ handle: FileHandleKey, _ name: String) -> FanotifyRecord {
        FanotifyRecord(kind: kind, handle: handle, name: Array(name.utf8))
    }
    var object: FanotifyRecord { FanotifyRecord(kind: .object, handle: file) }

    func born(in directory: FileHandleKey, _ name: String = "f") -> FanotifyEvent {
        FanotifyEvent(
            mask: [.create, .modify, .closeWrite], records: [named(.directoryName, directory, name), object])
    }
    func write(in directory: FileHandleKey, _ name: String = "f") -> FanotifyEvent {
        FanotifyEvent(mask: [.modify, .closeWrite], records: [named(.directoryName, directory, name), object])
    }
    /// `link()`: the link count change by handle only, then the new name.
    func link(into directory: FileHandleKey, _ name: String) -> [FanotifyEvent] {
        [
            FanotifyEvent(mask: .attrib, records: [object]),
            FanotifyEvent(mask: .create, records: [named(.directoryName, directory, name), object]),
        ]
    }

    func changedFiles(_ batches: [[FanotifyEvent]], translator: inout FanotifyTranslator) -> [[FileHandleKey]] {
        batches.map { translator.translate($0, watch: table).changedFiles }
    }

    func changedFiles(_ batches: [[FanotifyEvent]]) -> [[FileHandleKey]] {
        var translator = FanotifyTranslator()
        return changedFiles(batches, translator: &translator)
    }

    @Test func writesToAFileBornOutsideAreDropped() {
        #expect(changedFiles([[born(in: outside)], [write(in: outside)], [write(in: outside)]]) == [[], [], []])
    }

    /// Without `FAN_REPORT_TARGET_FID` a creation carries no handle: nothing is born, each
    /// write is handed on as before.
    @Test func aCreationWithoutTheEntrysHandleBearsNothing() {
        let creation = FanotifyEvent(mask: .create, records: [named(.directoryName, outside, "f")])
        #expect(changedFiles([[creation], [write(in: outside)]]) == [[], [file]])
    }

    /// Created outside, linked into the tree, written through the outside name: in separate
    /// reads, the write comes after the link's attribute change and is handed on.
    @Test func aLinkIntoTheTreeForgetsTheBirth() {
        #expect(
            changedFiles([[born(in: outside)], link(into: root, "g"), [write(in: outside)]]) == [[], [file], [file]])
    }

    /// All in one read, as the kernel merged it on 6.18: the write through the outside name
    /// joins the birth event, ahead of the link's attribute change, which is handed on after
    /// it (the tree reads the file after the write).
    @Test func aWriteMergedIntoTheBirthAheadOfTheLinkIsStillFollowedByAHandOn() {
        var translator = FanotifyTranslator()
        let output = translator.translate([born(in: outside)] + link(into: root, "g"), watch: table)
        #expect(output.changedFiles == [file])
        #expect(output.changes.map(\.kind) == [.created])
    }

    /// A link to a second name outside is a creation outside too, but after a link-count
    /// change: it is not a birth, so a later link into the tree (already counted) and the
    /// writes through either outside name are handed on.
    @Test func aLinksCreationOutsideIsNoBirth() {
        let batches = [[born(in: outside)], link(into: otherOutside, "g"), [write(in: otherOutside, "g")]]
        #expect(changedFiles(batches) == [[], [file], [file]])
    }

    /// A file of the tree linked to a name outside: the name's creation does not make it
    /// born outside, its writes through that name are handed on (the README's feature).
    @Test func aTreeFileLinkedOutsideIsNoBirth() {
        let created = FanotifyEvent(mask: [.create], records: [named(.directoryName, root, "t"), object])
        let batches = [[created], link(into: outside, "t"), [write(in: outside, "t")], [write(in: outside, "t")]]
        #expect(changedFiles(batches) == [[], [file], [file], [file]])
    }

    /// Renamed into the tree: the rename (and the file's own move) forget it.
    @Test func aRenameForgetsTheBirth() {
        let rename = FanotifyEvent(
            mask: .rename,
            records: [named(.oldDirectoryName, outside, "f"), named(.newDirectoryName, root, "f"), object])
        let moved = FanotifyEvent(mask: .moveSelf, records: [object])
        var translator = FanotifyTranslator()
        _ = translator.translate([born(in: outside)], watch: table)
        _ = translator.translate([rename], watch: table)
        #expect(!translator.outsideBorn.isBornOutside(file))
        _ = translator.translate([born(in: outside)], watch: table)
        _ = translator.translate([moved], watch: table)
        #expect(!translator.outsideBorn.isBornOutside(file))
    }

    /// A write through a descriptor with no path (`open_by_handle_at`) names no directory:
    /// handed on, and the file forgotten.
    @Test func aWriteWithoutADirectoryIsHandedOn() {
        let byHandle = FanotifyEvent(mask: .modify, records: [object])
        #expect(changedFiles([[born(in: outside)], [byHandle], [write(in: outside)]]) == [[], [file], [file]])
    }

    /// An attribute change through the outside name is handed on and forgets the file.
    @Test func anAttributeChangeOutsideForgetsTheBirth() {
        let attributes = FanotifyEvent(mask: .attrib, records: [named(.directoryName, outside, "f"), object])
        #expect(changedFiles([[born(in: outside)], [attributes], [write(in: outside)]]) == [[], [file], [file]])
    }

    /// Born in a directory of the tree not in the table yet: once the directory is in it,
    /// its events are the tree's own (the birth is forgotten), never dropped.
    @Test func aDirectoryEnteringTheTableEndsTheDrop() {
        var inTable = false
        var translator = FanotifyTranslator()
        let lookup: (FileHandleKey) -> Int32? = { $0 == self.outside && inTable ? 5 : nil }
        #expect(translator.translate([born(in: outside)], watch: lookup).changedFiles.isEmpty)
        inTable = true
        let output = translator.translate([write(in: outside)], watch: lookup)
        #expect(output.changes.map(\.watch) == [5])
        #expect(!translator.outsideBorn.isBornOutside(file))
    }

    /// Links counted up and down: the handle stays linked until its inode is removed; a
    /// creation of the same handle after that is a birth again (a handle is never reused
    /// for another object, and a dead one cannot be linked).
    @Test func aLinkedHandleStaysLinkedUntilItsRemoval() {
        var translator = FanotifyTranslator()
        _ = translator.translate([born(in: outside)] + link(into: otherOutside, "g"), watch: table)
        let unlink = [
            FanotifyEvent(mask: .attrib, records: [object]),
            FanotifyEvent(mask: .delete, records: [named(.directoryName, otherOutside, "g"), object]),
        ]
        _ = translator.translate(unlink, watch: table)
        #expect(translator.translate([write(in: outside)], watch: table).changedFiles == [file])
        let created = FanotifyEvent(mask: .create, records: [named(.directoryName, outside, "h"), object])
        _ = translator.translate([created], watch: table)
        #expect(!translator.outsideBorn.isBornOutside(file), "an unlink's attribute change counts as a link's")
        _ = translator.translate([FanotifyEvent(mask: [.attrib, .deleteSelf], records: [object])], watch: table)
        #expect(translator.outsideBorn.linkedCount == 0)
        _ = translator.translate([born(in: outside)], watch: table)
        #expect(translator.outsideBorn.isBornOutside(file))
    }

    /// A full set of births drops its older half: those files are resolved again.
    @Test func aFullBornSetForgetsItsOlderHalf() {
        var files = OutsideBornFiles(bornCapacity: 4)
        let handles = (30...35).map { F.handle(UInt8($0)) }
        let recorded = handles.map { files.dropsEventOutside(.create, of: $0) }
        #expect(recorded.allSatisfy { $0 })
        #expect(files.bornCount <= 4)
        let oldest = files.dropsEventOutside(.modify, of: handles[0])
        let newest = files.dropsEventOutside(.modify, of: handles[5])
        #expect(!oldest && newest)
    }

    /// A full linked set stops births for good (a link-count change it could not keep would
    /// let the link's creation pass for a birth); so does an overflow.
    @Test func aFullLinkedSetOrAnOverflowStopsBirths() {
        var files = OutsideBornFiles(linkedCapacity: 1)
        files.noteEventWithoutDirectory(.attrib, of: F.handle(40))
        let bornBefore = files.dropsEventOutside(.create, of: file)
        #expect(bornBefore)
        files.noteEventWithoutDirectory(.attrib, of: F.handle(41))
        #expect(!files.recordsBirths)
        let writeAfter = files.dropsEventOutside(.modify, of: file)
        #expect(!writeAfter, "births recorded before are forgotten too")
        let bornAfter = files.dropsEventOutside(.create, of: F.handle(42))
        #expect(!bornAfter)

        var translator = FanotifyTranslator()
        _ = translator.translate([born(in: outside)], watch: table)
        _ = translator.translate([FanotifyEvent(mask: .queueOverflow)], watch: table)
        #expect(translator.translate([write(in: outside)], watch: table).changedFiles == [file])
        #expect(!translator.outsideBorn.recordsBirths)
    }
}
