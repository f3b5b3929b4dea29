import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// The change backends of a process serving several roots (`run ROOT ROOT…`): at most one
/// inotify instance and one fanotify group (``SharedChangeBackend``), each root's engine
/// getting a view of the kind its `--backend` chooses. Made once per process and handed to
/// every root's ``EngineOptions``; a process serving one root has none and opens its own.
package final class SharedBackends: Sendable {
    private let slots = Mutex(Slots())

    private struct Slots {
        var inotify: SharedChangeBackend?
        var fanotify: SharedChangeBackend?
        /// The group's directory table, to mark each further root's file system.
        var fanotifyWatches: FanotifyWatches?
    }

    package init() {}

    /// A view of the process's inotify instance, opened by the first root that asks (or the
    /// first after every view had stopped).
    func inotifyView(root: FileDescriptor) -> Result<any ChangeBackend, BackendFailure> {
        slots.withLock { slots in
            if let view = slots.inotify?.view(root: root, changedFiles: { _ in }) { return .success(view) }
            let shared: SharedChangeBackend
            do throws(BackendFailure) {
                shared = try SharedChangeBackend(name: "inotify") { _ throws(BackendFailure) in
                    let inotify: InotifyDescriptor
                    do throws(Errno) {
                        inotify = try InotifyDescriptor()
                    } catch {
                        throw .inotify(error)
                    }
                    do throws(Errno) {
                        return try InotifyBackend(inotify: inotify)
                    } catch {
                        inotify.close()
                        throw .reader(error)
                    }
                }
            } catch {
                return .failure(error)
            }
            slots.inotify = shared
            return Self.firstView(of: shared, root: root, changedFiles: { _ in })
        }
    }

    /// A view of the process's fanotify group: the root's file system is marked unless it is
    /// already (one mark per file system, whatever the number of roots on it).
    func fanotifyView(
        root: FileDescriptor, changedFiles: @escaping @Sendable ([ChangedFile]) -> Void
    ) -> Result<any ChangeBackend, BackendFailure> {
        slots.withLock { slots in
            // The view first: it keeps the group open while the root's file system is marked.
            if let watches = slots.fanotifyWatches,
                let view = slots.fanotify?.view(root: root, changedFiles: changedFiles)
            {
                do throws(Errno) {
                    _ = try root.fileHandle(fileSystem: 0)
                } catch {
                    view.stop()
                    return .failure(.fanotify(FanotifyUnavailable(handleFailure: error)))
                }
                do throws(Errno) {
                    try watches.addRoot(root)
                } catch {
                    view.stop()
                    return .failure(.fanotify(FanotifyUnavailable(markFailure: error)))
                }
                return .success(view)
            }
            // The group's own descriptor of the first root: it resolves handles for as long as
            // the group lives, after that root's engine has closed its own.
            let anchor: FileDescriptor
            do throws(Errno) {
                anchor = try root.openDirectory([UInt8(ascii: ".")])
            } catch {
                return .failure(.reader(error))
            }
            let watches: FanotifyWatches
            switch WatchBackendSelection.openFanotify(root: anchor) {
            case .success(let opened): watches = opened
            case .failure(let unavailable):
                anchor.close()
                return .failure(.fanotify(unavailable))
            }
            let shared: SharedChangeBackend
            do throws(BackendFailure) {
                shared = try SharedChangeBackend(name: "fanotify", anchor: anchor) { files throws(BackendFailure) in
                    do throws(Errno) {
                        return try FanotifyBackend(watches: watches, changedFiles: files)
                    } catch {
                        throw .reader(error)
                    }
                }
            } catch {
                watches.close()
                anchor.close()
                return .failure(error)
            }
            slots.fanotify = shared
            slots.fanotifyWatches = watches
            return Self.firstView(of: shared, root: root, changedFiles: changedFiles)
        }
    }

    private static func firstView(
        of shared: SharedChangeBackend, root: FileDescriptor, changedFiles: @escaping @Sendable ([ChangedFile]) -> Void
    ) -> Result<any ChangeBackend, BackendFailure> {
        // A fresh object has no view yet, so it cannot have closed.
        guard let view = shared.view(root: root, changedFiles: changedFiles) else {
            return .failure(.reader(.badFileDescriptor))
        }
        return .success(view)
    }
}
