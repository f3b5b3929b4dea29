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
public final class FanotifyWatches: Sendable {
    public let group: FanotifyDescriptor
    private let state: Mutex<State>

    struct State {
        var watchByHandle: [FileHandleKey: Int32] = [:]
        var handleByWatch: [Int32: FileHandleKey] = [:]
        /// Watch numbers are never reused, so an event translated just before a directory left
        /// the table can never be taken for another directory.
        var nextWatch: Int32 = 1
        /// statfs's fsid for each mount id seen: one `fstatfs` per mount, not per directory.
        var fileSystemByMount: [Int32: UInt64] = [:]
        /// A descriptor on each marked file system, for `open_by_handle_at`.
        var marked: [UInt64: FileDescriptor] = [:]
        /// File systems that could not be marked, with the reason; their directories are
        /// polled like directories past inotify's watch limit.
        var unmarkable: [UInt64: Errno] = [:]
    }

    /// `root` is marked at once: a root that cannot be marked is no place for this backend.
    public init(group: FanotifyDescriptor, root: FileDescriptor) throws(Errno) {
        self.group = group
        state = Mutex(State())
        let fileSystem = try root.fileSystemID()
        try group.markFileSystem(of: root, mask: .quotaWatch)
        let keep = try root.openDirectory([UInt8(ascii: ".")])
        state.withLock { $0.marked[fileSystem] = keep }
    }

    /// Gives the directory open at `directory` its watch number, marking its file system
    /// first if it is a new one; the same number for a directory seen before (one directory
    /// at two places, bind mounts). Runs before the directory is listed, as an inotify watch
    /// is added: nothing made after the listing can be missed, and an event read before the
    /// directory had a number was about a change the listing sees.
    public func register(_ directory: FileDescriptor) -> Int32 {
        let found: (handle: FileHandleKey, mountID: Int32)
        do {
            found = try directory.fileHandle(fileSystem: 0)
        } catch .tooManyOpenFiles, .tooManyOpenFilesInSystem {
            return WatchOutcome.outOfDescriptors
        } catch {
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
            if let watch = state.watchByHandle[handle] { return watch }
            let watch = state.nextWatch
            state.nextWatch += 1
            state.watchByHandle[handle] = watch
            state.handleByWatch[watch] = handle
            return watch
        }
    }

    private func markIfNew(_ fileSystem: UInt64, mountID: Int32, directory: FileDescriptor) {
        let isNew = state.withLock { state in
            state.fileSystemByMount[mountID] = fileSystem
            return state.marked[fileSystem] == nil && state.unmarkable[fileSystem] == nil
        }
        guard isNew else { return }
        do throws(Errno) {
            try group.markFileSystem(of: directory, mask: .quotaWatch)
            let keep = try directory.openDirectory([UInt8(ascii: ".")])
            state.withLock { state in
                if state.marked[fileSystem] == nil { state.marked[fileSystem] = keep } else { keep.close() }
            }
        } catch {
            state.withLock { $0.unmarkable[fileSystem] = error }
        }
    }

    public func remove(_ watch: Int32) {
        state.withLock { state in
            guard let handle = state.handleByWatch.removeValue(forKey: watch) else { return }
            if state.watchByHandle[handle] == watch { state.watchByHandle[handle] = nil }
        }
    }

    /// Directories in the table.
    public var count: Int { state.withLock { $0.handleByWatch.count } }

    /// File systems that could not be marked, each with its reason.
    public var unmarkableReasons: [Errno] { state.withLock { Array($0.unmarkable.values) } }

    /// Translates a batch under one lock.
    func translate(_ events: [FanotifyEvent], with translator: inout FanotifyTranslator) -> FanotifyTranslator.Output {
        state.withLock { state in translator.translate(events) { state.watchByHandle[$0] } }
    }

    /// The device and inode of the object `handle` names, if it still exists on a file
    /// system this group marked.
    func resolve(_ handle: FileHandleKey) -> (device: UInt64, inode: UInt64)? {
        guard let mount = state.withLock({ $0.marked[handle.fileSystem] }),
            let opened = try? mount.open(handle: handle)
        else { return nil }
        defer { opened.close() }
        guard let status = try? opened.status() else { return nil }
        return (status.device, status.inode)
    }

    /// Closes the group and the descriptors kept for handles; the table is of no use after.
    public func close() {
        let kept = state.withLock { state in
            let kept = Array(state.marked.values)
            state.marked = [:]
            return kept
        }
        for descriptor in kept { descriptor.close() }
        group.close()
    }
}
