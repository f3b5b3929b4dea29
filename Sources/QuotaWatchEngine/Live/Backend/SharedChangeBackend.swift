import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// One kernel object (one inotify instance, or one fanotify group with a mark per file system)
/// and its one reader thread, serving every root of the process: each root's engine gets a
/// ``SharedBackendView``, a ``ChangeBackend`` of its own, whose keys a ``ChangeDispatchTable``
/// records, so that the reader hands each change to the root that added its key (one lookup
/// per change, whatever the number of roots) and an overflow to every root.
///
/// Without it, N roots held N inotify instances (past `fs.inotify.max_user_instances`, 128 by
/// default, a root could not start) or N fanotify groups, each told of every change on the
/// file system.
///
/// The kernel calls that add or drop a key run under the table's lock, so that a directory
/// moved from one root to another cannot lose its watch to the first root's release.
/// ``SharedBackendView/stop()`` drops that root's keys only; the kernel object closes with the
/// last view.
final class SharedChangeBackend: Sendable {
    let name: String
    private let inner: any ChangeBackend
    private let dispatch: Dispatch
    /// Closed after the reader stops: the first root's directory, opened for the group's own use.
    private let anchor: FileDescriptor?

    /// What the reader thread and the views share, behind one lock.
    final class Dispatch: Sendable {
        let state = Mutex(State())

        struct State {
            var table = ChangeDispatchTable()
            var views: [ChangeDispatchTable.Owner: Delivery] = [:]
            var nextOwner = 0
            /// Views handed out and not stopped; none left closes the kernel object.
            var open = 0
            var isClosed = false
            /// The reader's failure, told to views that start after it too.
            var failure: Errno?
        }

        /// Where a started view's changes go.
        struct Delivery {
            var device: UInt64
            var changes: @Sendable ([FileSystemChange]) -> Void
            var files: @Sendable ([ChangedFile]) -> Void
            var failed: @Sendable (Errno) -> Void
        }

        func deliver(_ changes: [FileSystemChange]) {
            let batches = state.withLock { state in
                state.table.split(changes).compactMap { batch in
                    state.views[batch.owner].map { (delivery: $0, changes: batch.changes) }
                }
            }
            for batch in batches { batch.delivery.changes(batch.changes) }
        }

        /// Files changed through names outside every tree, by inode: to each root on the file's
        /// device, whose engine looks each up in its own tree.
        func deliver(_ files: [ChangedFile]) {
            let byDevice = Dictionary(grouping: files, by: \.device)
            let deliveries = state.withLock { state in
                state.views.values.compactMap { view in byDevice[view.device].map { (view.files, $0) } }
            }
            for (files, changed) in deliveries { files(changed) }
        }

        func fail(_ error: Errno) {
            let views = state.withLock { state in
                state.failure = error
                return Array(state.views.values)
            }
            for view in views { view.failed(error) }
        }
    }

    /// `make` opens the kernel object and its reader, given where the fanotify backend hands
    /// files changed outside the trees; the reader starts at once.
    init(
        name: String, anchor: FileDescriptor? = nil,
        make: (@escaping @Sendable ([ChangedFile]) -> Void) throws(BackendFailure) -> any ChangeBackend
    ) throws(BackendFailure) {
        let dispatch = Dispatch()
        self.name = name
        self.dispatch = dispatch
        self.anchor = anchor
        inner = try make { dispatch.deliver($0) }
        inner.start(changes: { dispatch.deliver($0) }, failed: { dispatch.fail($0) })
    }

    /// A view for one more root, whose directory is open at `root`; nil once the last view
    /// has stopped (the kernel object is closed: the caller opens a fresh one). `changedFiles`
    /// gets the files changed on the root's device through names outside every tree.
    func view(root: FileDescriptor, changedFiles: @escaping @Sendable ([ChangedFile]) -> Void) -> SharedBackendView? {
        let device = (try? root.status().device) ?? 0
        let owner: ChangeDispatchTable.Owner? = dispatch.state.withLock { state in
            guard !state.isClosed else { return nil }
            let owner = state.nextOwner
            state.nextOwner += 1
            state.open += 1
            state.table.addOwner(owner)
            return owner
        }
        return owner.map { SharedBackendView(shared: self, owner: $0, device: device, changedFiles: changedFiles) }
    }

    var marks: Int? { inner.marks }

    var fanotifyWatches: FanotifyWatches? { inner.fanotifyWatches }

    func watch(_ directory: FileDescriptor, owner: ChangeDispatchTable.Owner) -> Int32 {
        dispatch.state.withLock { state in
            // A view that has stopped adds nothing: no one would release it.
            guard state.table.owners.contains(owner) else { return WatchOutcome.failed }
            let key = inner.watch(directory)
            if key >= 0 { state.table.add(key, owner: owner) }
            return key
        }
    }

    func watchOpens(_ directory: FileDescriptor, key: Int32) -> Bool { inner.watchOpens(directory, key: key) }

    func watchRemovals(in parent: FileDescriptor, owner: ChangeDispatchTable.Owner) -> Int32? {
        dispatch.state.withLock { state in
            guard state.table.owners.contains(owner) else { return nil }
            let key = inner.watchRemovals(in: parent)
            if let key { state.table.add(key, owner: owner) }
            return key
        }
    }

    /// Drops the kernel's watch only when no other root holds the key.
    func unwatch(_ key: Int32, owner: ChangeDispatchTable.Owner) {
        dispatch.state.withLock { state in
            if state.table.remove(key, owner: owner) { inner.unwatch(key) }
        }
    }

    func start(_ owner: ChangeDispatchTable.Owner, delivery: Dispatch.Delivery) {
        let failure = dispatch.state.withLock { state in
            state.views[owner] = delivery
            return state.failure
        }
        if let failure { delivery.failed(failure) }
    }

    /// Drops `owner`'s keys (the kernel's watches no other root holds) and its delivery; the
    /// last view to stop stops the reader and closes the kernel object.
    func stop(_ owner: ChangeDispatchTable.Owner) {
        let last = dispatch.state.withLock { state in
            guard state.table.owners.contains(owner) else { return false }
            for key in state.table.removeOwner(owner) { inner.unwatch(key) }
            state.views[owner] = nil
            state.open -= 1
            if state.open == 0 { state.isClosed = true }
            return state.isClosed
        }
        guard last else { return }
        inner.stop()
        anchor?.close()
    }
}

/// One root's ``ChangeBackend`` on a ``SharedChangeBackend``: its keys are the shared object's,
/// its changes only those of the directories it watched (and the overflows of all).
final class SharedBackendView: ChangeBackend {
    private let shared: SharedChangeBackend
    private let owner: ChangeDispatchTable.Owner
    private let device: UInt64
    private let changedFiles: @Sendable ([ChangedFile]) -> Void

    init(
        shared: SharedChangeBackend, owner: ChangeDispatchTable.Owner, device: UInt64,
        changedFiles: @escaping @Sendable ([ChangedFile]) -> Void
    ) {
        self.shared = shared
        self.owner = owner
        self.device = device
        self.changedFiles = changedFiles
    }

    func watch(_ directory: FileDescriptor) -> Int32 { shared.watch(directory, owner: owner) }

    func watchOpens(_ directory: FileDescriptor, key: Int32) -> Bool { shared.watchOpens(directory, key: key) }

    func watchRemovals(in parent: FileDescriptor) -> Int32? { shared.watchRemovals(in: parent, owner: owner) }

    func unwatch(_ key: Int32) { shared.unwatch(key, owner: owner) }

    /// The group's marks, every root's (one per file system).
    var marks: Int? { shared.marks }

    var fanotifyWatches: FanotifyWatches? { shared.fanotifyWatches }

    func start(
        changes: @escaping @Sendable ([FileSystemChange]) -> Void, failed: @escaping @Sendable (Errno) -> Void
    ) {
        shared.start(owner, delivery: .init(device: device, changes: changes, files: changedFiles, failed: failed))
    }

    func stop() { shared.stop(owner) }
}
