import QuotaWatchCore
import QuotaWatchSystem

/// `--backend`: which kernel interface tells the engine about changes.
package enum BackendChoice: String, Sendable, CaseIterable {
    /// By what each costs and sees (``AutoBackendRule``): inotify when every directory of ROOT's
    /// file system could have a watch, else fanotify where it can work.
    case auto
    case inotify
    case fanotify
}

/// The backend in use and the reason it was chosen, as the `ready` event, `status --json`
/// (`engine.backend`) and the log say it.
package struct SelectedBackend: Sendable {
    package var backend: any ChangeBackend
    /// "inotify" or "fanotify".
    package var name: String
    package var reason: String
}

/// Opens the backend `--backend` asks for, or says why it cannot work.
package enum WatchBackendSelection {
    /// Whether fanotify can work for the root open at `root`: CAP_SYS_ADMIN, a kernel with
    /// `FAN_REPORT_DFID_NAME` and `FAN_RENAME`, and a file system with file handles that
    /// takes a filesystem mark. The group is made with `FAN_UNLIMITED_QUEUE`: a filesystem
    /// mark reports every change on the file system, outside the root too, so a bounded queue
    /// would overflow (and force a full crawl) from work that is none of the root's; the
    /// reader drains the queue as fast as it fills, and the kernel charges the events to the
    /// daemon's memory cgroup, which bounds them.
    package static func openFanotify(root: FileDescriptor) -> Result<FanotifyWatches, FanotifyUnavailable> {
        let group: FanotifyDescriptor
        do {
            group = try FanotifyDescriptor(unlimitedQueue: true)
        } catch {
            return .failure(FanotifyUnavailable(initFailure: error))
        }
        do {
            _ = try root.fileHandle(fileSystem: 0)
        } catch {
            group.close()
            return .failure(FanotifyUnavailable(handleFailure: error))
        }
        do {
            return .success(try FanotifyWatches(group: group, root: root))
        } catch {
            group.close()
            return .failure(FanotifyUnavailable(markFailure: error))
        }
    }

    /// The backend for `choice`, with its reason, not started yet. `changedFiles` gets what
    /// fanotify reports by inode (``FanotifyBackend``). With `shared`, the root's view of the
    /// process's one backend of that kind (``SharedBackends``), not a kernel object of its own.
    package static func open(
        _ choice: BackendChoice, root: FileDescriptor, shared: SharedBackends? = nil,
        changedFiles: @escaping @Sendable ([ChangedFile]) -> Void
    ) -> Result<SelectedBackend, BackendFailure> {
        func inotifyBackend(_ reason: String) -> Result<SelectedBackend, BackendFailure> {
            if let shared {
                return shared.inotifyView(root: root).map {
                    SelectedBackend(backend: $0, name: "inotify", reason: reason)
                }
            }
            let inotify: InotifyDescriptor
            do {
                inotify = try InotifyDescriptor()
            } catch {
                return .failure(.inotify(error))
            }
            do {
                return .success(
                    SelectedBackend(backend: try InotifyBackend(inotify: inotify), name: "inotify", reason: reason))
            } catch {
                inotify.close()
                return .failure(.reader(error))
            }
        }
        func fanotifyBackend(_ reason: String) -> Result<SelectedBackend, BackendFailure> {
            if let shared {
                return shared.fanotifyView(root: root, changedFiles: changedFiles).map {
                    SelectedBackend(backend: $0, name: "fanotify", reason: reason)
                }
            }
            let watches: FanotifyWatches
            switch openFanotify(root: root) {
            case .success(let opened): watches = opened
            case .failure(let unavailable): return .failure(.fanotify(unavailable))
            }
            do {
                let backend = try FanotifyBackend(watches: watches, changedFiles: changedFiles)
                return .success(SelectedBackend(backend: backend, name: "fanotify", reason: reason))
            } catch {
                watches.close()
                return .failure(.reader(error))
            }
        }
        switch choice {
        case .inotify:
            return inotifyBackend("--backend inotify")
        case .fanotify:
            return fanotifyBackend("--backend fanotify")
        case .auto:
            let inodes = (try? root.fileSystemInodesInUse()) ?? nil
            let limit = InotifyLimits.current().effectiveMaxUserWatches
            switch AutoBackendRule.choose(inodesInUse: inodes, watchLimit: limit) {
            case .inotify(let reason):
                return inotifyBackend(reason)
            case .fanotify(let reason):
                switch fanotifyBackend(reason) {
                case .failure(.fanotify(let unavailable)):
                    return inotifyBackend(
                        "auto: fanotify would suit ROOT's file system (more inodes than inotify watches) but cannot "
                            + "work here: \(unavailable.reason)")
                case let other:
                    return other
                }
            }
        }
    }
}

package enum BackendFailure: Error, Sendable {
    /// inotify_init1 failed (the instance limit, most likely).
    case inotify(Errno)
    /// The reader's wake-up event could not be made.
    case reader(Errno)
    case fanotify(FanotifyUnavailable)
}

/// Why the fanotify backend cannot work, in words that name the cause and the way out.
package struct FanotifyUnavailable: Error, Sendable, CustomStringConvertible {
    package var reason: String

    init(initFailure error: Errno) {
        switch error {
        case .notPermitted:
            reason = "a filesystem mark needs CAP_SYS_ADMIN (run as root, or use --backend inotify)"
        case .invalidArgument:
            reason = "this kernel has no FAN_REPORT_DFID_NAME (Linux 5.9 or later; use --backend inotify)"
        case .notImplemented:
            reason = "this kernel was built without fanotify (use --backend inotify)"
        default:
            reason = "fanotify_init failed: \(error) (use --backend inotify)"
        }
    }

    init(handleFailure error: Errno) {
        switch error {
        case .notSupported:
            reason = "the root's file system has no file handles (name_to_handle_at: EOPNOTSUPP; use --backend inotify)"
        default:
            reason = "name_to_handle_at on the root failed: \(error) (use --backend inotify)"
        }
    }

    init(markFailure error: Errno) {
        switch error {
        case .crossDevice:
            reason =
                "the root's file system cannot take a filesystem mark (EXDEV: a subvolume or an id-mapped mount; "
                + "use --backend inotify)"
        case .notSupported, .noDevice:
            reason =
                "the root's file system does not report file ids to fanotify (\(error == .noDevice ? "ENODEV" : "EOPNOTSUPP")"
                + "; use --backend inotify)"
        case .invalidArgument:
            reason = "this kernel has no FAN_RENAME (Linux 5.17 or later; use --backend inotify)"
        default:
            reason = "fanotify_mark on the root's file system failed: \(error) (use --backend inotify)"
        }
    }

    package var description: String { reason }
}
