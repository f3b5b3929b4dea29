import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// The fanotify backend's stand-in for inotify watches: a table from each directory's file
/// handle to a watch number of its own, filled by the crawl (`name_to_handle_at` where the
/// inotify backend calls `inotify_add_watch`) and read by the reader thread to turn events
/// into the tree's inotify events. One mark per file system covers every directory on it,
/// so a directory costs a table entry, not a kernel watch.
///
/// Shared by the crawl's workers, the engine thread and the reader thread, behind one lock.
package final class FanotifyWatches: Sendable {
    package let group: FanotifyDescriptor
    private let state: Mutex<State>
    /// The root, for `open_by_handle_at` on its file system. No descriptor is kept on another
    /// file system: it would keep that mount busy (umount: target is busy).
    private let root: FileDescriptor
    private let rootFileSystem: UInt64
    /// Roots added after the first (``addRoot(_:)``), when one group serves several: a
    /// descriptor of the table's own on each further file system, for `open_by_handle_at`.
    private let moreRoots = Mutex<[UInt64: FileDescriptor]>([:])

    struct State {
        /// Handle to watch number and back, in one arena (about 40 B a directory on ext4).
        var table = DirectoryHandleTable()
        /// Watch numbers are never reused, so an event translated just before a directory left
        /// the table can never be taken for another directory.
        var nextWatch: Int32 = 1
        /// statfs's fsid for each mount seen (by its unique id where the kernel has one, since a
        /// classic mount id is reused): one `fstatfs` and one mark per mount, not per directory.
        var fileSystemByMount: [UInt64: UInt64] = [:]
        /// File systems that could not be marked, with the reason; their directories are
        /// polled like directories past inotify's watch limit.
        var unmarkable: [UInt64: Unmarkable] = [:]
    }

    /// Why a file system takes no part in the table: the call that failed and its error.
    package struct Unmarkable: Sendable, Equatable, CustomStringConvertible {
        /// `name_to_handle_at` (the file system gives no file handles, overlayfs without
        /// `nfs_export` say) or `fanotify_mark`.
        package var call: String
        package var error: Errno

        package var description: String { "\(call): \(error)" }
    }

    /// `root` is marked at once: a root that cannot be marked is no place for this backend.
    /// It stays the caller's, and open for as long as this table is used.
    package init(group: FanotifyDescriptor, root: FileDescriptor) throws(Errno) {
        self.group = group
        self.root = root
        state = Mutex(State())
        rootFileSystem = try root.fileSystemID()
        try group.markFileSystem(of: root, mask: .quotaWatch)
    }

    /// Gives the directory open at `directory` its watch number, marking its file system
    /// first if it is seen through a new mount (marking again is harmless, and a file system
    /// unmounted and mounted again is a new super block that has no mark); the same number for a directory seen before (one directory
    /// at two places, bind mounts). Runs before the directory is listed, as an inotify watch
    /// is added: nothing made after the listing can be missed, and an event read before the
    /// directory had a number was about a change the listing sees.
    package func register(_ directory: FileDescriptor) -> Int32 {
        let found: (handle: FileHandleKey, mountID: UInt64)
        do {
            found = try directory.fileHandle(fileSystem: 0)
        } catch .tooManyOpenFiles, .tooManyOpenFilesInSystem {
            return WatchOutcome.outOfDescriptors
        } catch {
            // No handle, no key for its events: polled like a directory past the watch limit,
            // and the reason is the one the degraded message gives.
            let fileSystem = (try? directory.fileSystemID()) ?? 0
            state.withLock { $0.unmarkable[fileSystem] = Unmarkable(call: "name_to_handle_at", error: error) }
            return WatchOutcome.limitReached
        }
        var handle = found.handle
        let known = state.withLock { $0.fileSystemByMount[found.mountID] }
        if let known {
            handle.fileSystem = known
        } else {
            guard let fileSystem = try? directory.fileSystemID() else { return WatchOutcome.failed }
            handle.fileSystem = fileSystem
            markIfNew(fileSystem, mountID: found.mountID, directory: directory)
        }
        return state.withLock { state in
            guard state.unmarkable[handle.fileSystem] == nil else { return WatchOutcome.limitReached }
            if let watch = state.table.watch(of: handle) { return watch }
            let watch = state.nextWatch
            state.nextWatch += 1
            state.table.insert(handle, watch: watch)
            return watch
        }
    }

    private func markIfNew(_ fileSystem: UInt64, mountID: UInt64, directory: FileDescriptor) {
        do throws(Errno) {
            try group.markFileSystem(of: directory, mask: .quotaWatch)
            state.withLock { state in
                state.fileSystemByMount[mountID] = fileSystem
                state.unmarkable[fileSystem] = nil
            }
        } catch {
            state.withLock { state in
                state.fileSystemByMount[mountID] = fileSystem
                state.unmarkable[fileSystem] = Unmarkable(call: "fanotify_mark", error: error)
            }
        }
    }

    /// Marks the file system of another root served by the same group (the first was marked
    /// by ``init(group:root:)``): throws what `fanotify_mark` says when that root cannot be
    /// served (the caller has checked it gives file handles). Keeps a descriptor of its own on a file system not seen
    /// yet, to resolve the handles of files changed there; ``close()`` closes it.
    package func addRoot(_ root: FileDescriptor) throws(Errno) {
        let fileSystem = try root.fileSystemID()
        try group.markFileSystem(of: root, mask: .quotaWatch)
        guard fileSystem != rootFileSystem, moreRoots.withLock({ $0[fileSystem] == nil }) else { return }
        let own = try root.openDirectory([UInt8(ascii: ".")])
        let kept = moreRoots.withLock { roots in
            guard roots[fileSystem] == nil else { return false }
            roots[fileSystem] = own
            return true
        }
        if !kept { own.close() }
    }

    package func remove(_ watch: Int32) {
        state.withLock { $0.table.remove(watch: watch) }
    }

    /// Directories in the table.
    package var count: Int { state.withLock { $0.table.count } }

    /// File systems marked: one filesystem mark each.
    package var markCount: Int {
        state.withLock { state in Set(state.fileSystemByMount.values).subtracting(state.unmarkable.keys).count }
    }

    /// File systems that could not be marked, each with its reason.
    package var unmarkableReasons: [Unmarkable] { state.withLock { Array($0.unmarkable.values) } }

    /// Translates what one read returned under one lock (``FanotifyTranslator/translate(raw:table:)``:
    /// an event elsewhere on the file system costs one lookup); a directory reported removed
    /// leaves the table.
    func translate(
        _ bytes: UnsafeRawBufferPointer, with translator: inout FanotifyTranslator
    )
        -> FanotifyTranslator.Output
    {
        state.withLock { state in
            let output = translator.translate(raw: bytes, table: state.table)
            for handle in output.removedDirectories { state.table.remove(handle) }
            return output
        }
    }

    /// The device and inode of the object `handle` names, if it still exists on the root's
    /// file system (a write through an outside name to a file on another file system below
    /// the root is caught by the re-stat at sync only, as under inotify).
    func resolve(_ handle: FileHandleKey) -> (device: UInt64, inode: UInt64, links: UInt64)? {
        let anchor: FileDescriptor? =
            handle.fileSystem == rootFileSystem ? root : moreRoots.withLock { $0[handle.fileSystem] }
        guard let anchor, let opened = try? anchor.open(handle: handle) else { return nil }
        defer { opened.close() }
        guard let status = try? opened.status() else { return nil }
        return (status.device, status.inode, status.linkCount)
    }

    /// Closes the group, which drops every mark, and the descriptors ``addRoot(_:)`` kept; the
    /// table is of no use after.
    package func close() {
        group.close()
        for own in moreRoots.withLock({ $0.values }) { own.close() }
    }
}
