import QuotaWatchCore
import QuotaWatchEngine

enum FakeError: Error, Equatable {
    case noSuchEntry, exists, notDirectory, isDirectory, notEmpty, invalidMove
}

/// An in-memory Linux file system on one device, for driving ``LiveTree`` with no kernel.
///
/// Every operation changes the tree at once and queues the inotify events Linux would queue
/// for it, on the watches that exist at that moment (see inotify(7)): tests deliver those
/// events later, in batches of their choosing, so the engine's stats may see a later state
/// than the event describes, exactly as with the real queue. Watches are per inode, so adding
/// one to an already watched directory returns its descriptor again; removing one queues
/// IN_IGNORED; identical consecutive events merge; a full queue ends in one IN_Q_OVERFLOW.
///
/// Operations act with root's rights: they work inside unreadable directories too.
struct FakeFileSystem {
    typealias InodeNumber = UInt64

    struct Node {
        var isDirectory: Bool
        var apparent: UInt64 = 0
        var allocated: UInt64 = 0
        /// Names of a non-directory, the ones outside the root included.
        var names: UInt64 = 0
        /// A directory's entries by raw-byte name.
        var entries: [[UInt8]: InodeNumber] = [:]
        /// A directory's parent; nil for the two tops and for removed directories.
        var parent: InodeNumber?
        /// False after `chmod 000`: it cannot be opened, listed or searched by the engine.
        var isReadable = true
        /// An open descriptor still reaches a removed directory; it lists as empty.
        var isRemoved = false
        /// mtime and ctime, ns since the epoch: set to ``FakeFileSystem/wallNow`` by a create or
        /// a write; ``setModified(_:to:)`` sets the mtime as utimensat does (and moves the ctime).
        var modified: Int64 = 0
        var changed: Int64 = 0
    }

    static let device: UInt64 = 0xFA4E
    static let rootInode: InodeNumber = 2
    static let outsideInode: InodeNumber = 3

    var nodes: [InodeNumber: Node]
    private var nextInode: InodeNumber = 100
    /// The wall clock the fake's times are taken from (ns since the epoch); 0 unless a test
    /// keeps time.
    var wallNow: Int64 = 0

    // MARK: inotify state

    /// Events queued and not yet taken by the test.
    private(set) var queue: [InotifyEvent] = []
    /// fanotify's way instead of inotify's: an event names the directory's inode and is tied to
    /// a watch only when it is taken, by the watches that exist then (the fanotify reader looks
    /// a directory's handle up in the table as it reads), so an event about a directory that
    /// was not watched yet when it happened still comes once a crawl has watched it.
    var resolvesWatchesWhenRead = false
    /// The events of that mode, each with the inode of the directory it is about (nil: one
    /// already tied to its watch, IN_IGNORED or the overflow).
    private(set) var unresolved: [(inode: InodeNumber?, event: InotifyEvent)] = []
    /// The kernel's max_queued_events: past it, events are dropped and one overflow is queued.
    var queueCapacity = Int.max
    /// The user's max_user_watches: past it, adding a watch fails with ENOSPC.
    var watchLimit = Int.max
    /// Whether a removed directory's IN_DELETE_SELF and IN_IGNORED come before the parent's
    /// IN_DELETE (the usual order: the dentry dies first) or after it (the directory was
    /// still open somewhere, so its inode died later).
    var selfEventsFirst = true
    /// When set, a listing reports every file as written within the writeback window, as the
    /// kernel crawl does for a recent mtime (the fake keeps no times).
    var reportsFilesAsRecentlyWritten = false
    /// Which files keep their allocation until their next event (``AllocationFinality``: on
    /// ext4, small files with no hole); nil: no file is known to.
    var allocationFinality: AllocationFinality?
    private(set) var watchByInode: [InodeNumber: Int32] = [:]
    private(set) var inodeByWatch: [Int32: InodeNumber] = [:]
    /// Watches that report opens too (IN_OPEN added to their mask).
    var watchesOpens: Set<Int32> = []
    private var nextWatch: Int32 = 1
    var nextCookie: UInt32 = 1

    // MARK: Directory handles, as KernelFileSystem keeps them

    /// How many directory descriptors the engine side keeps open; 0 opens by path every time.
    let handleCapacity: Int
    var handles: [DirectoryID: (inode: InodeNumber, lastUse: UInt64)] = [:]
    var handleClock: UInt64 = 0

    init(handleCapacity: Int = 256) {
        self.handleCapacity = handleCapacity
        var root = Node(isDirectory: true)
        root.apparent = Self.directorySize(entries: 0)
        root.allocated = root.apparent
        nodes = [Self.rootInode: root, Self.outsideInode: root]
    }

    // MARK: Looking things up

    func inode(at path: FakePath) -> InodeNumber? {
        var current = path.isOutside ? Self.outsideInode : Self.rootInode
        for component in path.components {
            guard let next = nodes[current]!.entries[component] else { return nil }
            current = next
        }
        return current
    }

    func node(at path: FakePath) -> Node? { inode(at: path).map { nodes[$0]! } }

    func isDirectory(_ path: FakePath) -> Bool { node(at: path)?.isDirectory ?? false }

    func fileStatus(of inode: InodeNumber) -> FileStatus {
        let node = nodes[inode]!
        return FileStatus(
            device: Self.device, inode: inode, kind: node.isDirectory ? .directory : .regular,
            linkCount: node.isDirectory ? 2 : node.names, apparentBytes: node.apparent,
            allocatedBytes: node.allocated, modifiedNanoseconds: node.modified, changedNanoseconds: node.changed)
    }

    /// A directory's own size as entries come and go (both ways, like tmpfs; ext4 only grows).
    static func directorySize(entries: Int) -> UInt64 { 4096 * UInt64(1 + entries / 4) }

    /// Every path below `top`, directories before their contents, in name order.
    func paths(below top: FakePath) -> [FakePath] {
        guard let start = inode(at: top), nodes[start]!.isDirectory else { return [] }
        var result: [FakePath] = []
        var work: [(FakePath, InodeNumber)] = [(top, start)]
        while let (path, directory) = work.popLast() {
            for (name, child) in nodes[directory]!.entries.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                let childPath = path.appending(name)
                result.append(childPath)
                if nodes[child]!.isDirectory { work.append((childPath, child)) }
            }
        }
        return result
    }

    // MARK: Operations, each queuing its events

    mutating func mkdir(_ path: FakePath) throws(FakeError) {
        let parent = try directoryForNewEntry(path)
        let inode = allocateInode()
        var node = Node(isDirectory: true, parent: parent)
        node.apparent = Self.directorySize(entries: 0)
        node.allocated = node.apparent
        nodes[inode] = node
        addEntry(path.name, inode, to: parent)
        notify(parent, [.create, .isDirectory], path.name)
    }

    /// `open(O_CREAT)`, an optional write, `close`. Allocation defaults to whole 4 KiB blocks.
    mutating func createFile(_ path: FakePath, size: UInt64 = 0, allocated: UInt64? = nil) throws(FakeError) {
        let parent = try directoryForNewEntry(path)
        let inode = allocateInode()
        nodes[inode] = Node(
            isDirectory: false, apparent: size, allocated: allocated ?? Self.blocks(for: size), names: 1,
            modified: wallNow, changed: wallNow)
        addEntry(path.name, inode, to: parent)
        notify(parent, .create, path.name)
        if size > 0 { notify(parent, .modify, path.name) }
        notify(parent, .closeWrite, path.name)
    }

    /// A write or truncate through `path`, then `close`. Only the directory of the name used
    /// hears of it, even when the inode has other names.
    mutating func write(_ path: FakePath, size: UInt64, allocated: UInt64? = nil) throws(FakeError) {
        let (parent, inode) = try existingEntry(path)
        guard !nodes[inode]!.isDirectory else { throw .isDirectory }
        nodes[inode]!.apparent = size
        nodes[inode]!.allocated = allocated ?? Self.blocks(for: size)
        nodes[inode]!.modified = wallNow
        nodes[inode]!.changed = wallNow
        notify(parent, .modify, path.name)
        notify(parent, .closeWrite, path.name)
    }

    /// `utimensat` of the mtime (`touch -d`, `curl -R`, `tar -x`): the ctime moves to now, as
    /// only the kernel sets it.
    mutating func setModified(_ path: FakePath, to modified: Int64) throws(FakeError) {
        let (parent, inode) = try existingEntry(path)
        nodes[inode]!.modified = modified
        nodes[inode]!.changed = wallNow
        notify(parent, .attrib, path.name)
    }

    /// The file system settles an allocation later (delayed allocation, trimmed
    /// preallocation): no event at all.
    mutating func settleAllocation(_ path: FakePath, allocated: UInt64) throws(FakeError) {
        let (_, inode) = try existingEntry(path)
        guard !nodes[inode]!.isDirectory else { throw .isDirectory }
        nodes[inode]!.allocated = allocated
    }

    /// `link(2)`. The link count change reaches only watches on the inode itself, and files
    /// are never watched, so only the new name's directory hears of it.
    mutating func link(_ existing: FakePath, _ path: FakePath) throws(FakeError) {
        let (_, inode) = try existingEntry(existing)
        guard !nodes[inode]!.isDirectory else { throw .isDirectory }
        let parent = try directoryForNewEntry(path)
        nodes[inode]!.names += 1
        addEntry(path.name, inode, to: parent)
        notify(parent, .create, path.name)
    }

    mutating func unlink(_ path: FakePath) throws(FakeError) {
        let (parent, inode) = try existingEntry(path)
        guard !nodes[inode]!.isDirectory else { throw .isDirectory }
        removeEntry(path.name, from: parent)
        dropName(of: inode)
        notify(parent, .delete, path.name)
    }

    /// `rm -rf`: files first, then each directory bottom-up.
    mutating func removeTree(_ path: FakePath) throws(FakeError) {
        let (_, inode) = try existingEntry(path)
        guard nodes[inode]!.isDirectory else { return try unlink(path) }
        for name in nodes[inode]!.entries.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            try removeTree(path.appending(name))
        }
        try rmdir(path)
    }

    mutating func rmdir(_ path: FakePath) throws(FakeError) {
        let (parent, inode) = try existingEntry(path)
        guard nodes[inode]!.isDirectory else { throw .notDirectory }
        guard nodes[inode]!.entries.isEmpty else { throw .notEmpty }
        removeEntry(path.name, from: parent)
        nodes[inode]!.parent = nil
        nodes[inode]!.isRemoved = true
        if selfEventsFirst {
            directoryDied(inode)
            notify(parent, [.delete, .isDirectory], path.name)
        } else {
            notify(parent, [.delete, .isDirectory], path.name)
            directoryDied(inode)
        }
    }

    /// `rename(2)`, with its rules: a directory replaces only an empty directory, a file only
    /// a file, nothing moves below itself, and two names of one inode make it a no-op.
    /// Each side queues its half of the pair only if that directory is watched.
    mutating func rename(_ from: FakePath, _ to: FakePath) throws(FakeError) {
        let (sourceParent, moved) = try existingEntry(from)
        let targetParent = try directoryForEntry(to)
        let isDirectory = nodes[moved]!.isDirectory
        if isDirectory {
            var ancestor: InodeNumber? = targetParent
            while let current = ancestor {
                if current == moved { throw .invalidMove }
                ancestor = nodes[current]!.parent
            }
        }
        let replaced = nodes[targetParent]!.entries[to.name]
        if let replaced {
            if replaced == moved { return }
            let replacedNode = nodes[replaced]!
            if isDirectory {
                guard replacedNode.isDirectory else { throw .notDirectory }
                guard replacedNode.entries.isEmpty else { throw .notEmpty }
            } else if replacedNode.isDirectory {
                throw .isDirectory
            }
        }
        let cookie = nextCookie
        nextCookie &+= 1
        removeEntry(from.name, from: sourceParent)
        if replaced != nil { removeEntry(to.name, from: targetParent) }
        addEntry(to.name, moved, to: targetParent)
        if isDirectory { nodes[moved]!.parent = targetParent }
        let flag: InotifyMask = isDirectory ? .isDirectory : []
        notify(sourceParent, [.movedFrom, flag], from.name, cookie: cookie)
        notify(targetParent, [.movedTo, flag], to.name, cookie: cookie)
        if isDirectory { notifySelf(moved, [.moveSelf, .isDirectory]) }
        if let replaced {
            if nodes[replaced]!.isDirectory {
                nodes[replaced]!.parent = nil
                nodes[replaced]!.isRemoved = true
                notifySelf(replaced, [.attrib, .isDirectory])
                directoryDied(replaced)
            } else {
                dropName(of: replaced)
            }
        }
    }

    /// `chmod 000` or `chmod 755` on a directory (also when nothing changes: the event comes
    /// anyway). The parent hears it first, then the directory itself.
    /// open(2) of an existing file: IN_OPEN in its directory, where that watch asked for opens.
    mutating func open(_ path: FakePath) throws(FakeError) {
        let (parent, _) = try existingEntry(path)
        guard let watch = watchByInode[parent], watchesOpens.contains(watch) else { return }
        notify(parent, .open, path.name)
    }

    mutating func chmod(_ path: FakePath, readable: Bool) throws(FakeError) {
        let (parent, inode) = try existingEntry(path)
        guard nodes[inode]!.isDirectory else { throw .notDirectory }
        nodes[inode]!.isReadable = readable
        notify(parent, [.attrib, .isDirectory], path.name)
        notifySelf(inode, [.attrib, .isDirectory])
    }

    // MARK: The queue

    mutating func takeEvents(_ count: Int = .max) -> [InotifyEvent] {
        if resolvesWatchesWhenRead {
            let taken = Array(unresolved.prefix(count))
            unresolved.removeFirst(taken.count)
            return taken.compactMap { inode, event in
                guard let inode else { return event }
                guard let watch = watchByInode[inode] else { return nil }
                var resolved = event
                resolved.watch = watch
                return resolved
            }
        }
        let taken = Array(queue.prefix(count))
        queue.removeFirst(taken.count)
        return taken
    }

    mutating func discardEvents() {
        queue.removeAll()
        unresolved.removeAll()
    }

    /// Adds a watch the way inotify_add_watch(2) does: one per inode.
    mutating func addWatch(_ inode: InodeNumber) -> Int32 {
        if let existing = watchByInode[inode] { return existing }
        guard inodeByWatch.count < watchLimit else { return WatchOutcome.limitReached }
        let watch = nextWatch
        nextWatch += 1
        watchByInode[inode] = watch
        inodeByWatch[watch] = inode
        return watch
    }

    /// inotify_rm_watch(2): queues IN_IGNORED; a watch already gone is EINVAL, silently.
    mutating func dropWatch(_ watch: Int32) {
        guard let inode = inodeByWatch.removeValue(forKey: watch) else { return }
        watchByInode.removeValue(forKey: inode)
        watchesOpens.remove(watch)
        enqueue(InotifyEvent(watch: watch, mask: .ignored))
    }

    // MARK: Internals

    private static func blocks(for size: UInt64) -> UInt64 { (size + 4095) / 4096 * 4096 }

    mutating func allocateInode() -> InodeNumber {
        nextInode += 1
        return nextInode
    }

    func existingEntry(_ path: FakePath) throws(FakeError) -> (parent: InodeNumber, inode: InodeNumber) {
        guard !path.components.isEmpty else { throw .invalidMove }
        let parent = try directoryForEntry(path)
        guard let inode = nodes[parent]!.entries[path.name] else { throw .noSuchEntry }
        return (parent, inode)
    }

    private func directoryForEntry(_ path: FakePath) throws(FakeError) -> InodeNumber {
        guard !path.components.isEmpty else { throw .invalidMove }
        guard let parent = inode(at: path.parent) else { throw .noSuchEntry }
        guard nodes[parent]!.isDirectory else { throw .notDirectory }
        return parent
    }

    private func directoryForNewEntry(_ path: FakePath) throws(FakeError) -> InodeNumber {
        let parent = try directoryForEntry(path)
        guard nodes[parent]!.entries[path.name] == nil else { throw .exists }
        return parent
    }

    private mutating func addEntry(_ name: [UInt8], _ inode: InodeNumber, to directory: InodeNumber) {
        nodes[directory]!.entries[name] = inode
        resize(directory)
    }

    private mutating func removeEntry(_ name: [UInt8], from directory: InodeNumber) {
        nodes[directory]!.entries.removeValue(forKey: name)
        resize(directory)
    }

    private mutating func resize(_ directory: InodeNumber) {
        let size = Self.directorySize(entries: nodes[directory]!.entries.count)
        nodes[directory]!.apparent = size
        nodes[directory]!.allocated = size
    }

    private mutating func dropName(of inode: InodeNumber) {
        nodes[inode]!.names -= 1
        if nodes[inode]!.names == 0 { nodes.removeValue(forKey: inode) }
    }

    /// The last name of a directory is gone: its watch reports IN_DELETE_SELF, then the
    /// kernel destroys the watch with IN_IGNORED.
    private mutating func directoryDied(_ inode: InodeNumber) {
        guard let watch = watchByInode[inode] else { return }
        notifySelf(inode, [.deleteSelf, .isDirectory])
        dropWatch(watch)
    }

    mutating func notify(_ directory: InodeNumber, _ mask: InotifyMask, _ name: [UInt8], cookie: UInt32 = 0) {
        if resolvesWatchesWhenRead {
            return enqueueUnresolved(directory, InotifyEvent(watch: 0, mask: mask, cookie: cookie, name: name))
        }
        guard let watch = watchByInode[directory] else { return }
        enqueue(InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: name))
    }

    mutating func notifySelf(_ inode: InodeNumber, _ mask: InotifyMask) {
        if resolvesWatchesWhenRead { return enqueueUnresolved(inode, InotifyEvent(watch: 0, mask: mask)) }
        guard let watch = watchByInode[inode] else { return }
        enqueue(InotifyEvent(watch: watch, mask: mask))
    }

    private mutating func enqueue(_ event: InotifyEvent) {
        if resolvesWatchesWhenRead { return enqueueUnresolved(nil, event) }
        if queue.count >= queueCapacity {
            if queue.last?.mask != .queueOverflow { queue.append(InotifyEvent(watch: -1, mask: .queueOverflow)) }
            return
        }
        // inotify drops an event identical to the one queued last.
        if queue.last == event { return }
        queue.append(event)
    }

    /// fanotify's queue: bounded as inotify's, ending in one overflow, merging nothing.
    private mutating func enqueueUnresolved(_ inode: InodeNumber?, _ event: InotifyEvent) {
        if unresolved.count >= queueCapacity {
            if unresolved.last?.event.mask != .queueOverflow {
                unresolved.append((nil, InotifyEvent(watch: -1, mask: .queueOverflow)))
            }
            return
        }
        unresolved.append((inode, event))
    }
}
