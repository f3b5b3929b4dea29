import QuotaWatchCore
import QuotaWatchSystem

/// Open descriptors for recently used directories of the tree, at most `capacity` of them.
///
/// A descriptor follows its directory through renames, so a cached one is always right. A new
/// one is opened at the directory's path in the tree and accepted only if it is the inode the
/// tree knows: when a rename is still queued, the path leads elsewhere and the caller waits
/// for the events instead of trusting the wrong directory.
struct DirectoryHandles {
    private let root: FileDescriptor
    /// Where each cached directory's descriptor sits in `slots`.
    private var slotOf: [DirectoryID: Int] = [:]
    /// The cache itself, evicted in clock order: the hand passes over slots used since its
    /// last pass (clearing the mark) and takes the first one that was not. O(1) per miss on
    /// average, where searching for the least recently used one scanned every entry.
    private var slots: [Slot] = []
    private var hand = 0
    private let capacity: Int

    private struct Slot {
        var directory: DirectoryID?
        var descriptor: FileDescriptor
        var used: Bool
    }

    /// The mount ROOT lies on: only descriptors on it are kept (nil: the kernel does not say).
    private let rootMount: UInt64?

    init(root: FileDescriptor, capacity: Int = 256) {
        self.root = root
        self.capacity = capacity
        rootMount = root.mountID
    }

    /// Runs `body` with a descriptor of `directory`. One on ROOT's own mount is kept for next
    /// time; one on another mount below ROOT is closed as soon as `body` returns, since an
    /// open descriptor keeps its file system busy and `umount` would fail for as long as the
    /// daemon runs (an inotify watch does not).
    mutating func withDescriptor<Result>(
        for directory: DirectoryID, in tree: TallyTree, _ body: (FileDescriptor) -> Result
    ) throws(OpenFailure) -> Result {
        if directory == tree.root { return body(root) }
        if let index = slotOf[directory] {
            slots[index].used = true
            return body(slots[index].descriptor)
        }
        let fresh: FileDescriptor
        do {
            fresh = try openChecked(directory, in: tree)
        } catch .outOfDescriptors {
            // The cache is what this process can give back at once.
            forgetAll()
            fresh = try openChecked(directory, in: tree)
        }
        let onRootMount =
            rootMount.map { fresh.mountID == $0 } ?? (tree.device(of: directory) == tree.device(of: tree.root))
        guard onRootMount else {
            defer { fresh.close() }
            return body(fresh)
        }
        let index = freeSlot()
        slots[index] = Slot(directory: directory, descriptor: fresh, used: true)
        slotOf[directory] = index
        return body(fresh)
    }

    /// A slot to fill: a new one while below capacity, else an empty or evicted one.
    private mutating func freeSlot() -> Int {
        if slots.count < capacity {
            slots.append(Slot(directory: nil, descriptor: root, used: false))
            return slots.count - 1
        }
        while true {
            let index = hand
            hand = (hand + 1) % slots.count
            guard let directory = slots[index].directory else { return index }
            if slots[index].used {
                slots[index].used = false
                continue
            }
            slots[index].descriptor.close()
            slotOf.removeValue(forKey: directory)
            slots[index].directory = nil
            return index
        }
    }

    /// Why a directory of the tree could not be opened.
    enum OpenFailure: Error {
        /// It is there but may not be read (du counts its own inode only).
        case permissionDenied
        /// Its path in the tree leads nowhere or to another inode: a rename or removal of it
        /// is still on its way through the event queue.
        case elsewhere
        /// The process or the system is out of descriptors (EMFILE, ENFILE).
        case outOfDescriptors
    }

    /// Opens the directory at its path in the tree, checking it is the inode the tree knows.
    /// The caller owns the result.
    func openChecked(_ directory: DirectoryID, in tree: TallyTree) throws(OpenFailure) -> FileDescriptor {
        let descriptor: FileDescriptor
        do {
            descriptor = try open(tree.components(of: directory))
        } catch .permissionDenied {
            throw .permissionDenied
        } catch .tooManyOpenFiles, .tooManyOpenFilesInSystem {
            throw .outOfDescriptors
        } catch {
            throw .elsewhere
        }
        guard let status = try? descriptor.status(), status.kind == .directory,
            status.inode == tree.inode(of: directory), status.device == tree.device(of: directory)
        else {
            descriptor.close()
            throw .elsewhere
        }
        return descriptor
    }

    /// One `openat` for the whole path when it fits in PATH_MAX, else one per component.
    private func open(_ components: [ArraySlice<UInt8>]) throws(Errno) -> FileDescriptor {
        if components.isEmpty { return try root.openDirectory([UInt8(ascii: ".")]) }
        let joined = Array(components.joined(separator: [UInt8(ascii: "/")]))
        if joined.count < 4000 { return try root.openDirectory(joined) }
        var current = try root.openDirectory([UInt8(ascii: ".")])
        for component in components {
            let next: FileDescriptor
            do {
                next = try current.openDirectory(component)
            } catch {
                current.close()
                throw error
            }
            current.close()
            current = next
        }
        return current
    }

    mutating func forget(_ directory: DirectoryID) {
        guard let index = slotOf.removeValue(forKey: directory) else { return }
        slots[index].descriptor.close()
        slots[index].directory = nil
        slots[index].used = false
    }

    mutating func forgetAll() {
        for slot in slots where slot.directory != nil { slot.descriptor.close() }
        slots.removeAll()
        slotOf.removeAll()
        hand = 0
    }
}
