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
    private var open: [DirectoryID: (descriptor: FileDescriptor, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    private let capacity: Int

    init(root: FileDescriptor, capacity: Int = 256) {
        self.root = root
        self.capacity = capacity
    }

    mutating func descriptor(for directory: DirectoryID, in tree: TallyTree) throws(OpenFailure) -> FileDescriptor {
        if directory == tree.root { return root }
        clock += 1
        if let cached = open[directory] {
            open[directory] = (cached.descriptor, clock)
            return cached.descriptor
        }
        let fresh = try openChecked(directory, in: tree)
        if open.count >= capacity, let oldest = open.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            oldest.value.descriptor.close()
            open.removeValue(forKey: oldest.key)
        }
        open[directory] = (fresh, clock)
        return fresh
    }

    /// Why a directory of the tree could not be opened.
    enum OpenFailure: Error {
        /// It is there but may not be read (du counts its own inode only).
        case permissionDenied
        /// Its path in the tree leads nowhere or to another inode: a rename or removal of it
        /// is still on its way through the event queue.
        case elsewhere
    }

    /// Opens the directory at its path in the tree, checking it is the inode the tree knows.
    /// The caller owns the result.
    func openChecked(_ directory: DirectoryID, in tree: TallyTree) throws(OpenFailure) -> FileDescriptor {
        let descriptor: FileDescriptor
        do {
            descriptor = try open(tree.components(of: directory))
        } catch .permissionDenied {
            throw .permissionDenied
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
        if let cached = open.removeValue(forKey: directory) { cached.descriptor.close() }
    }

    mutating func forgetAll() {
        for cached in open.values { cached.descriptor.close() }
        open.removeAll()
    }
}
