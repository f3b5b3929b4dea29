import QuotaWatchCore
import QuotaWatchSystem

/// A kernel interface that reports what changes in the tree: the one protocol a backend
/// implements to plug into the engine (``InotifyBackend`` and ``FanotifyBackend``).
///
/// The engine asks a backend for two things only. While crawling, it hands over each
/// directory's open descriptor just before listing it and keeps the key it gets back in the
/// tree (`TallyTree.watch(of:)`). After ``start(changes:failed:)`` the backend delivers, on
/// a thread of its own, batches of ``FileSystemChange`` that carry those keys. The tree
/// never learns which backend it is fed by.
///
/// What the tree relies on, whatever the backend:
/// - a key is ≥ 0 and names one directory inode: the same directory reached again (a bind
///   mount, a second crawl) gets the same key back;
/// - a key is reported ``ChangeKind/forgotten`` once the backend stops reporting on it (the
///   directory was removed, or ``unwatch(_:)`` was called), and may be reused only after that;
/// - the changes of one directory come in the order they happened, a rename as a
///   ``ChangeKind/movedFrom`` and a ``ChangeKind/movedTo`` with one cookie (the `movedTo`
///   within `LiveTree.moveWindow` of its `movedFrom`), and lost changes as one
///   ``FileSystemChange/overflow``.
package protocol ChangeBackend: AnyObject, Sendable {
    /// Starts reporting changes in `directory`, an open descriptor of a directory about to be
    /// listed (before the listing, so that nothing created meanwhile is missed). Returns the
    /// key its changes will carry, or a ``WatchOutcome`` code: ``WatchOutcome/limitReached``
    /// (the subtree is polled instead), ``WatchOutcome/outOfDescriptors`` or
    /// ``WatchOutcome/failed``.
    func watch(_ directory: FileDescriptor) -> Int32

    /// Reports the opening of files in a directory already watched under `key` too (cleanup's
    /// `order: lru` reads the last open); true when it does so and the key is still `key`.
    func watchOpens(_ directory: FileDescriptor, key: Int32) -> Bool

    /// Reports the removal and renaming of names in the root's parent, for the root's own end;
    /// the key, or nil when that cannot be watched.
    func watchRemovals(in parent: FileDescriptor) -> Int32?

    /// Stops reporting on `key`: its directory left the tree.
    func unwatch(_ key: Int32)

    /// Filesystem marks held (fanotify), as `status` reports them; nil for a backend whose
    /// kernel objects are a watch per directory (inotify), which the tree counts itself.
    var marks: Int? { get }

    /// The fanotify group's directory table when this backend is fanotify's (alone or shared):
    /// the unmarkable file systems a degraded report names, and whether writes through outside
    /// names come as events (so that a sync need not re-stat linked inodes). Nil for inotify.
    var fanotifyWatches: FanotifyWatches? { get }

    /// Starts delivering: every batch goes to `changes` on the backend's own thread, in order;
    /// a failure that ends reading goes to `failed`, once, and nothing comes after it.
    func start(
        changes: @escaping @Sendable ([FileSystemChange]) -> Void, failed: @escaping @Sendable (Errno) -> Void)

    /// Stops delivering, joins the backend's thread and releases the kernel object, and every
    /// key with it (a root's ``SharedBackendView`` releases that root's keys; the shared
    /// object closes with its last view). Calling it again does nothing.
    func stop()
}

extension ChangeBackend {
    package var fanotifyWatches: FanotifyWatches? { nil }
}
