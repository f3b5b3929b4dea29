import QuotaWatchCore
import QuotaWatchSystem

/// ``ChangeBackend`` on inotify: a watch per directory, its descriptor the directory's key,
/// read by an ``KernelEventReader`` thread that turns each event into a ``FileSystemChange``.
package final class InotifyBackend: ChangeBackend {
    private let inotify: InotifyDescriptor
    private let reader: KernelEventReader

    /// Takes `inotify` over: ``stop()`` closes it, which also drops every watch.
    package init(inotify: InotifyDescriptor) throws(Errno) {
        self.inotify = inotify
        reader = try KernelEventReader(inotify: inotify)
    }

    package func watch(_ directory: FileDescriptor) -> Int32 {
        do throws(Errno) {
            return try inotify.addWatch(directory, mask: .quotaWatch)
        } catch .noSpace {
            return WatchOutcome.limitReached
        } catch .tooManyOpenFiles, .tooManyOpenFilesInSystem {
            return WatchOutcome.outOfDescriptors
        } catch {
            return WatchOutcome.failed
        }
    }

    /// inotify hands back the watch an inode already has, with the mask replaced.
    package func watchOpens(_ directory: FileDescriptor, key: Int32) -> Bool {
        (try? inotify.addWatch(directory, mask: [.quotaWatch, .open])) == key
    }

    package func watchRemovals(in parent: FileDescriptor) -> Int32? {
        // Added to the mask, not put in its place: ROOT's parent may be a directory of the tree
        // too (bind-mounted below ROOT), whose watch is this one and needs all of its events.
        try? inotify.addWatch(parent, mask: [.delete, .movedFrom, .onlyDirectory, .excludeUnlinked, .maskAdd])
    }

    package func unwatch(_ key: Int32) { inotify.removeWatch(key) }

    package var marks: Int? { nil }

    package func start(
        changes: @escaping @Sendable ([FileSystemChange]) -> Void, failed: @escaping @Sendable (Errno) -> Void
    ) {
        reader.start(changes: changes, failed: failed)
    }

    package func stop() { reader.stop() }
}
