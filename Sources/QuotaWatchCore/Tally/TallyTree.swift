/// The one model of a directory tree's disk use: every directory's subtree totals, kept exact
/// under adds, removes, resizes and moves in O(depth) each.
///
/// Layout, chosen for a million files in well under 100 bytes each:
/// - directories and files are arrays of small structs addressed by `UInt32` numbers;
/// - names are byte ranges in one ``NameArena``;
/// - one open-addressing table maps (directory, name) to an entry, one maps an inode to its
///   single-named file, and inodes with several names live in a side table that counts, for
///   every ancestor, how many of the inode's names lie below it (du's rule: once per subtree).
///
/// A value type with no I/O: the engine owns one and feeds it stat results; tests drive it
/// with hand-made ``FileStatus`` values.
package struct TallyTree {
    var files: [FileRecord] = []
    var directories: [DirectoryRecord] = []
    var names = NameArena()
    var entryIndex = OpenAddressingTable()
    /// Single-named files by (directory device, inode), to find them when a second name appears.
    var inodeIndex = OpenAddressingTable()
    var linkedInodes: [InodeKey: LinkedInode] = [:]
    /// True for a tree built with ``Lookup/deferred``: the two tables above stay empty (so
    /// their removals find nothing), a name is found by walking its directory's list, and an
    /// inode first seen with one name is never looked up again.
    let lookupIsDeferred: Bool
    /// Directories with a rule slot whose tally changed since the last drain, each once.
    var dirtyDirectories: [DirectoryID] = []
    /// Directories whose sizes passed 2⁶⁴ − 1, with the high words; empty but for sparse giants.
    var overflowCarries: [UInt32: OverflowCarry] = [:]
    /// The sizes of file records marked wide (st_size of 4 GiB or more, or 2 TiB allocated), by
    /// record number: a few entries where a tree holds disk images or videos, most often none.
    var wideSizes: [UInt32: Usage] = [:]
    /// The high 32 bits of the files' inodes, by the slot a ``FileRecord`` names: 0 first (all
    /// of ext4's), then each new one as it is met, at most 15 (see ``FileRecord``).
    var inodeHighWords: [UInt32] = [0]
    /// The inodes of file records whose high word found no slot, by record number: empty but
    /// on a file system with more than 15 high words in one tree.
    var wideInodes: [UInt32: UInt64] = [:]
    var freeFile = noRecord
    var freeDirectory = noRecord
    package internal(set) var fileCount = 0
    package internal(set) var directoryCount = 0

    static let directoryTag: UInt32 = 1 << 31

    package let root = DirectoryID(rawValue: 0)

    /// How a tree finds a name or a single-named inode.
    package enum Lookup: Sendable {
        /// Through the name and inode tables, kept at every change: a live tree looks a name
        /// up at every event.
        case indexed
        /// Without the tables, for a one-shot scan, which never looks an inode up and a name
        /// only for the few directories its report names: filling the tables took about a
        /// seventh of a scan's CPU. A name is found by walking its directory's list, and a
        /// second name of an inode first seen with one link is counted on its own, as du
        /// counts it (du remembers only inodes that had several links when it met them).
        case deferred
    }

    /// A tree holding only its root directory.
    package init(root status: FileStatus, lookup: Lookup = .indexed) {
        lookupIsDeferred = lookup == .deferred
        directories.append(
            DirectoryRecord(
                tally: Tally(usage: status.usage, files: 0, dirs: 0), own: status.usage,
                device: status.device, inode: status.inode, parent: noRecord,
                nameOffset: NameArena.emptyName, isLive: true))
        directoryCount = 1
    }

    // MARK: Queries

    /// A directory's totals. Sizes past 2⁶⁴ − 1 (sparse files only) read as 2⁶⁴ − 1, where du's
    /// stop too (it prints `Infinity`); the tree itself stays exact.
    package func tally(of directory: DirectoryID) -> Tally {
        var tally = directories[Int(directory.rawValue)].tally
        if !overflowCarries.isEmpty, let carry = overflowCarries[directory.rawValue] {
            tally.usage.allocated = OverflowCarry.saturated(tally.usage.allocated, carry: carry.allocated)
            tally.usage.apparent = OverflowCarry.saturated(tally.usage.apparent, carry: carry.apparent)
        }
        return tally
    }

    /// A directory's exact sizes, however large.
    func wideUsage(of directory: UInt32) -> (allocated: Int128, apparent: Int128) {
        let usage = directories[Int(directory)].tally.usage
        let carry = overflowCarries.isEmpty ? OverflowCarry() : overflowCarries[directory] ?? OverflowCarry()
        return (
            Int128(carry.allocated) << 64 | Int128(usage.allocated),
            Int128(carry.apparent) << 64 | Int128(usage.apparent)
        )
    }

    package func parent(of directory: DirectoryID) -> DirectoryID? {
        let parent = directories[Int(directory.rawValue)].parent
        return parent == noRecord ? nil : DirectoryID(rawValue: parent)
    }

    package func contains(_ directory: DirectoryID) -> Bool {
        Int(directory.rawValue) < directories.count && directories[Int(directory.rawValue)].isLive
    }

    /// True while `file` names a file of the tree (a removed one's number may be reused).
    package func contains(_ file: FileID) -> Bool {
        Int(file.rawValue) < files.count && files[Int(file.rawValue)].directory != noRecord
    }

    package func name(of directory: DirectoryID) -> ArraySlice<UInt8> {
        let record = directories[Int(directory.rawValue)]
        return names.name(at: record.nameOffset)
    }

    package func name(of file: FileID) -> ArraySlice<UInt8> {
        let record = files[Int(file.rawValue)]
        return names.name(at: record.nameOffset)
    }

    package func directory(containing file: FileID) -> DirectoryID {
        DirectoryID(rawValue: files[Int(file.rawValue)].directory)
    }

    /// Last-known sizes of the file's inode.
    package func usage(of file: FileID) -> Usage {
        let record = files[Int(file.rawValue)]
        guard record.isLinked else { return recordUsage(file.rawValue) }
        let device = directories[Int(record.directory)].device
        return linkedInodes[InodeKey(device: device, inode: fileInode(file.rawValue))]?.usage
            ?? recordUsage(file.rawValue)
    }

    package func inode(of file: FileID) -> UInt64 { fileInode(file.rawValue) }

    /// The file recorded with this inode and a single name, if any.
    package func singleNamedFile(device: UInt64, inode: UInt64) -> FileID? {
        findSingleNamedFile(device: device, inode: inode).map(FileID.init(rawValue:))
    }

    package func device(of directory: DirectoryID) -> UInt64 { directories[Int(directory.rawValue)].device }

    package func inode(of directory: DirectoryID) -> UInt64 { directories[Int(directory.rawValue)].inode }

    /// The directory's own inode's sizes, not counting what is inside it.
    package func ownUsage(of directory: DirectoryID) -> Usage { directories[Int(directory.rawValue)].own }

    /// The owner's per-directory slot: the engine keeps its watch descriptor here.
    package func watch(of directory: DirectoryID) -> Int32 { directories[Int(directory.rawValue)].watch }

    package mutating func setWatch(_ watch: Int32, of directory: DirectoryID) {
        directories[Int(directory.rawValue)].watch = watch
    }

    // MARK: Rule slots

    /// The owner's rule slot of a directory, nil when it carries no rule.
    package func ruleSlot(of directory: DirectoryID) -> UInt32? {
        let slot = directories[Int(directory.rawValue)].ruleSlot
        return slot == noRecord ? nil : slot
    }

    /// Gives a directory a rule slot (nil takes it away). From now on every change of its
    /// tally lists it for ``drainDirtyDirectories()``. `UInt32.max` is reserved.
    package mutating func setRuleSlot(_ slot: UInt32?, of directory: DirectoryID) {
        precondition(slot != noRecord, "UInt32.max means no slot")
        directories[Int(directory.rawValue)].ruleSlot = slot ?? noRecord
    }

    /// The directories that carry a rule slot and whose tally changed since the last drain,
    /// each once, in the order they first changed. Directories removed or stripped of their
    /// slot meanwhile are left out.
    package mutating func drainDirtyDirectories() -> [DirectoryID] {
        var drained: [DirectoryID] = []
        for directory in dirtyDirectories {
            let index = Int(directory.rawValue)
            // A removed record may have been reused, or listed twice across a reuse: the bit
            // on the live record decides.
            guard index < directories.count, directories[index].isDirty else { continue }
            directories[index].isDirty = false
            if directories[index].isLive && directories[index].ruleSlot != noRecord { drained.append(directory) }
        }
        dirtyDirectories.removeAll(keepingCapacity: dirtyDirectories.count <= 1024)
        return drained
    }

    package func entry(named name: some Collection<UInt8>, in directory: DirectoryID) -> TreeEntry? {
        findEntry(named: name, in: directory)
    }

    /// The same for a name held in an array, the engine's case: a generic called from another
    /// module runs unspecialized, one witness call per byte, and this runs once per event.
    package func entry(named name: [UInt8], in directory: DirectoryID) -> TreeEntry? {
        findEntry(named: name, in: directory)
    }

    func findEntry(named name: some Collection<UInt8>, in directory: DirectoryID) -> TreeEntry? {
        let parent = directory.rawValue
        if lookupIsDeferred { return walkEntry(named: name, in: parent) }
        let found = entryIndex.find(hash: hashName(parent: parent, name)) { value in
            if value & Self.directoryTag != 0 {
                let record = directories[Int(value & ~Self.directoryTag)]
                return record.parent == parent
                    && names.equals(offset: record.nameOffset, name)
            }
            let record = files[Int(value)]
            return record.directory == parent
                && names.equals(offset: record.nameOffset, name)
        }
        guard let found else { return nil }
        if found & Self.directoryTag != 0 { return .directory(DirectoryID(rawValue: found & ~Self.directoryTag)) }
        return .file(FileID(rawValue: found))
    }

    /// `name` in `parent`, from the directory's own lists: the lookup of a tree without tables.
    private func walkEntry(named name: some Collection<UInt8>, in parent: UInt32) -> TreeEntry? {
        var child = directories[Int(parent)].firstChild
        while child != noRecord {
            let record = directories[Int(child)]
            if names.equals(offset: record.nameOffset, name) {
                return .directory(DirectoryID(rawValue: child))
            }
            child = record.nextSibling
        }
        var file = directories[Int(parent)].firstFile
        while file != noRecord {
            let record = files[Int(file)]
            if names.equals(offset: record.nameOffset, name) {
                return .file(FileID(rawValue: file))
            }
            file = record.nextSibling
        }
        return nil
    }

    // MARK: Shared plumbing

    /// Adds `delta` to `directory` and each of its ancestors.
    mutating func propagate(_ delta: TallyDelta, from directory: UInt32, stoppingAt stop: UInt32 = noRecord) {
        var current = directory
        while current != stop && current != noRecord {
            adjustTally(of: current, by: delta)
            current = directories[Int(current)].parent
        }
    }

    /// The one write of any directory's totals: every add, remove, resize, move and hard-link
    /// change goes through here. A directory that carries a rule slot is listed as dirty the
    /// first time it changes after a drain; without slots this costs one compare.
    @inline(__always)
    mutating func adjustTally(of directory: UInt32, by delta: TallyDelta) {
        let before = directories[Int(directory)].tally.usage
        if directories[Int(directory)].apply(delta) { dirtyDirectories.append(DirectoryID(rawValue: directory)) }
        // What carries out of the low 64 bits (a borrow is -1): almost always nothing.
        let allocatedCarry = (Int128(before.allocated) &+ delta.allocated) >> 64
        let apparentCarry = (Int128(before.apparent) &+ delta.apparent) >> 64
        guard allocatedCarry != 0 || apparentCarry != 0 else { return }
        var carry = overflowCarries[directory] ?? OverflowCarry()
        carry.allocated &+= Int64(truncatingIfNeeded: allocatedCarry)
        carry.apparent &+= Int64(truncatingIfNeeded: apparentCarry)
        overflowCarries[directory] = carry.isZero ? nil : carry
    }

    func entryHash(_ value: UInt32) -> UInt64 {
        Self.entryHash(value, files: files, directories: directories, names: names)
    }

    func inodeHash(_ file: UInt32) -> UInt64 {
        Self.inodeHash(file, files: files, directories: directories, highWords: inodeHighWords, wideInodes: wideInodes)
    }

    /// The hash of a stored entry: its parent and name.
    static func entryHash(
        _ value: UInt32, files: [FileRecord], directories: [DirectoryRecord], names: NameArena
    ) -> UInt64 {
        if value & directoryTag != 0 {
            let record = directories[Int(value & ~directoryTag)]
            return hashName(parent: record.parent, names.name(at: record.nameOffset))
        }
        let record = files[Int(value)]
        return hashName(parent: record.directory, names.name(at: record.nameOffset))
    }

    /// The hash of a single-named file: its device and inode.
    static func inodeHash(
        _ file: UInt32, files: [FileRecord], directories: [DirectoryRecord], highWords: [UInt32],
        wideInodes: [UInt32: UInt64]
    ) -> UInt64 {
        let inode = fileInode(file, files: files, highWords: highWords, wideInodes: wideInodes)
        return hashInode(device: directories[Int(files[Int(file)].directory)].device, inode: inode)
    }

    /// Hash functions for the tables' backward-shift removal. They capture the record arrays,
    /// not the tree: a closure over `self` would share the table being mutated and force a full
    /// copy of it on every call.
    var entryHasher: (UInt32) -> UInt64 {
        let (files, directories, names) = (files, directories, names)
        return { Self.entryHash($0, files: files, directories: directories, names: names) }
    }

    var inodeHasher: (UInt32) -> UInt64 {
        let (files, directories, highWords, wideInodes) = (files, directories, inodeHighWords, wideInodes)
        return {
            Self.inodeHash($0, files: files, directories: directories, highWords: highWords, wideInodes: wideInodes)
        }
    }

    /// Inserts into the name table, rebuilding it twice as large first when it is full. Every
    /// live record but `value` is in the table whenever this is called, so the larger table is
    /// built from the records, in their order: a walk of the table's slots would visit the
    /// records and their names at random, and cost a cache miss per entry on a large crawl.
    /// The hash is an autoclosure so that a tree without tables never computes it.
    mutating func indexEntry(_ value: UInt32, hash: @autoclosure () -> UInt64) {
        guard !lookupIsDeferred else { return }
        if entryIndex.needsGrowth { rebuildEntryIndex(slotCount: entryIndex.slotCount * 2, leavingOut: value) }
        entryIndex.insert(value, hash: hash())
    }

    /// The name table rebuilt with `slotCount` slots from the records, all live ones but
    /// `value` (one about to be inserted).
    private mutating func rebuildEntryIndex(slotCount: Int, leavingOut value: UInt32 = noRecord) {
        var rebuilt = OpenAddressingTable(slotCount: slotCount)
        for index in files.indices where files[index].directory != noRecord && UInt32(index) != value {
            rebuilt.insert(UInt32(index), hash: entryHash(UInt32(index)))
        }
        for index in directories.indices.dropFirst() where directories[index].isLive {
            let tagged = UInt32(index) | Self.directoryTag
            if tagged != value { rebuilt.insert(tagged, hash: entryHash(tagged)) }
        }
        entryIndex = rebuilt
    }

    /// Inserts into the inode table, rebuilding it twice as large first when it is full, from
    /// the records as ``indexEntry(_:hash:)`` does. That relies on every live single-named
    /// record but `file` being in the table at each call: ``addFile(named:in:status:deferring:)``
    /// turns an inode's linked names single-named before its new record exists, or a growth
    /// meanwhile would index the new record here and again when its own turn came.
    /// The hash is an autoclosure so that a tree without tables never computes it.
    mutating func indexInode(_ file: UInt32, hash: @autoclosure () -> UInt64) {
        guard !lookupIsDeferred else { return }
        if inodeIndex.needsGrowth { rebuildInodeIndex(slotCount: inodeIndex.slotCount * 2, leavingOut: file) }
        inodeIndex.insert(file, hash: hash())
    }

    /// The inode table rebuilt with `slotCount` slots from the records, all live single-named
    /// ones but `file` (one about to be inserted).
    private mutating func rebuildInodeIndex(slotCount: Int, leavingOut file: UInt32 = noRecord) {
        var rebuilt = OpenAddressingTable(slotCount: slotCount)
        for index in files.indices
        where files[index].directory != noRecord && !files[index].isLinked && UInt32(index) != file {
            rebuilt.insert(UInt32(index), hash: inodeHash(UInt32(index)))
        }
        inodeIndex = rebuilt
    }

    /// Rebuilds each table that doubling left loose at 75 % load, from the records in their
    /// order. For the end of a crawl: the tables then hold what the tree will keep, and a
    /// daemon keeps them for as long as it watches. A later insert past 80 % doubles again.
    package mutating func fitIndexesToContents() {
        guard !lookupIsDeferred else { return }
        if entryIndex.isLoose { rebuildEntryIndex(slotCount: entryIndex.fittedSlotCount) }
        if inodeIndex.isLoose { rebuildInodeIndex(slotCount: inodeIndex.fittedSlotCount) }
    }

    func findSingleNamedFile(device: UInt64, inode: UInt64) -> UInt32? {
        guard !lookupIsDeferred else { return nil }
        return inodeIndex.find(hash: hashInode(device: device, inode: inode)) { file in
            fileHasInode(file, inode) && directories[Int(files[Int(file)].directory)].device == device
        }
    }
}
