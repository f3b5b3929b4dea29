import QuotaWatchCore
import QuotaWatchSystem

/// ``ChangeBackend`` on fanotify: one filesystem mark per file system and a table of
/// directory handles (``FanotifyWatches``) instead of a watch per directory, read by a reader
/// thread on a ``FanotifyEventSource``. Also reports files changed through names outside the
/// tree, by inode, to `changedFiles`, before the changes of the same batch.
package final class FanotifyBackend: ChangeBackend {
    package let watches: FanotifyWatches
    private let reader: KernelEventReader
    private let changedFiles: @Sendable ([ChangedFile]) -> Void

    /// Takes `watches` over: ``stop()`` closes the group, which drops every mark.
    package init(watches: FanotifyWatches, changedFiles: @escaping @Sendable ([ChangedFile]) -> Void) throws(Errno) {
        self.watches = watches
        self.changedFiles = changedFiles
        reader = try KernelEventReader(source: FanotifyEventSource(watches: watches))
    }

    package func watch(_ directory: FileDescriptor) -> Int32 { watches.register(directory) }

    /// `FAN_OPEN` on the directory's own inode, with `FAN_EVENT_ON_CHILD`: the opens of the
    /// files in it, reported with the directory's handle and the name, as inotify's `IN_OPEN`.
    /// Never on the file system's mark, where every open on it would come.
    package func watchOpens(_ directory: FileDescriptor, key: Int32) -> Bool {
        (try? watches.group.markInode(directory, mask: .opensOfChildren)) != nil
    }

    package func watchRemovals(in parent: FileDescriptor) -> Int32? {
        let key = watches.register(parent)
        return key >= 0 ? key : nil
    }

    package func unwatch(_ key: Int32) { watches.remove(key) }

    package var marks: Int? { watches.markCount }

    package var fanotifyWatches: FanotifyWatches? { watches }

    package func start(
        changes: @escaping @Sendable ([FileSystemChange]) -> Void, failed: @escaping @Sendable (Errno) -> Void
    ) {
        reader.start(changes: changes, files: changedFiles, failed: failed)
    }

    package func stop() { reader.stop() }
}
