import CQuotaWatchShims
import Glibc
import QuotaWatchCore

extension Deleter {
    // MARK: Walking down from ROOT

    /// Opens the directory `components` lead to from ROOT (ROOT itself when empty).
    func openDirectories(_ components: ArraySlice<[UInt8]>) -> Result<FileDescriptor, Stop> {
        if components.isEmpty { return .success(root) }
        if usesOpenat2 {
            let joined = Array(components.joined(separator: [UInt8(ascii: "/")]))
            switch openBeneath(joined) {
            case .success(let directory):
                // RESOLVE_NO_XDEV already refused other mounts; the checks cost one fstat and one statx.
                if (try? directory.status().device) != rootDevice {
                    directory.close()
                    return .failure(Stop(.skipped(.otherDevice(joined))))
                }
                if (try? directory.mountPlace())?.isAnotherMount(than: rootMount) != false {
                    directory.close()
                    return .failure(Stop(.skipped(.mountPoint(joined))))
                }
                return .success(directory)
            case .failure(let error):
                // Walk again component by component: it names the component at fault, and if
                // a swap put the directory back meanwhile, it opens it just as safely.
                let diagnosis = openComponentByComponent(components)
                if case .failure(let stop) = diagnosis, case .failed = stop.outcome {
                    return .failure(Stop(.failed(error)))
                }
                return diagnosis
            }
        }
        return openComponentByComponent(components)
    }

    private func openBeneath(_ path: [UInt8], from directory: FileDescriptor? = nil) -> Result<FileDescriptor, Errno> {
        let start = directory ?? root
        let flags = UInt64(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        let resolve = UInt64(QW_RESOLVE_BENEATH | QW_RESOLVE_NO_SYMLINKS | QW_RESOLVE_NO_XDEV)
        var attempts = 0
        while true {
            let result: Result<CInt, Errno>
            do {
                result = .success(
                    try unsafe withCString(path) { cPath throws(Errno) in
                        try valueOrErrno { unsafe system_openat2(start.rawValue, cPath, flags, resolve) }.get()
                    })
            } catch {
                result = .failure(error)
            }
            switch result {
            case .success(let raw): return .success(FileDescriptor(rawValue: raw))
            // A rename or mount raced the lookup; the kernel asks to try again.
            case .failure(.resourceTemporarilyUnavailable) where attempts < 8: attempts += 1
            case .failure(let error): return .failure(error)
            }
        }
    }

    private func openComponentByComponent(_ components: ArraySlice<[UInt8]>) -> Result<FileDescriptor, Stop> {
        var current = root
        var walked: [UInt8] = []
        for component in components {
            walked += walked.isEmpty ? component : [UInt8(ascii: "/")] + component
            let status: FileStatus
            do {
                status = try current.status(of: component)
            } catch {
                if current != root { current.close() }
                return .failure(Stop(error == .noSuchFileOrDirectory ? .skipped(.gone(walked)) : .failed(error)))
            }
            let opened = openVerified(component, in: current, path: walked, status: status)
            if current != root { current.close() }
            switch opened {
            case .success(let next): current = next
            case .failure(let reason): return .failure(Stop(.skipped(reason)))
            }
        }
        return .success(current)
    }

    /// Opens the directory `name` in `parent` and checks it is the directory `status`
    /// described, on ROOT's device and ROOT's mount: never a symlink, never a mount point
    /// (whatever its device), never a directory swapped in after the stat.
    func openVerified(
        _ name: [UInt8], in parent: FileDescriptor, path: [UInt8], status: FileStatus
    ) -> Result<FileDescriptor, SkipReason> {
        switch status.kind {
        case .symlink: return .failure(.symlinkInPath(path))
        case .directory: break
        default: return .failure(.notADirectory(path))
        }
        if status.device != rootDevice { return .failure(.otherDevice(path)) }
        let directory: FileDescriptor
        do {
            if usesOpenat2 {
                // One step, refusing to cross onto a mount or through a symlink.
                directory = try openBeneath(name, from: parent).get()
            } else {
                directory = try parent.openDirectory(name)
            }
        } catch .crossDevice {
            return .failure(.mountPoint(path))
        } catch .noSuchFileOrDirectory {
            return .failure(.gone(path))
        } catch .tooManySymbolicLinks {
            return .failure(.symlinkInPath(path))
        } catch .notDirectory {
            let now = try? parent.status(of: name)
            return .failure(now?.kind == .symlink ? .symlinkInPath(path) : .notADirectory(path))
        } catch {
            return .failure(.cannotRemove(error))
        }
        guard let opened = try? directory.status() else {
            directory.close()
            return .failure(.gone(path))
        }
        if opened.device != rootDevice {
            directory.close()
            return .failure(.otherDevice(path))
        }
        // Without openat2, or mounted in the instant after the lookup: the mount ID tells.
        switch Result(catching: { () throws(Errno) in try directory.mountPlace() }) {
        case .success(let place) where !place.isAnotherMount(than: rootMount): break
        case .success:
            directory.close()
            return .failure(.mountPoint(path))
        case .failure(let error):
            directory.close()
            return .failure(.cannotRemove(error))
        }
        guard FileIdentity(opened) == FileIdentity(status) else {
            directory.close()
            return .failure(.changedInode(expected: FileIdentity(status), found: FileIdentity(opened)))
        }
        return .success(directory)
    }

    /// Whether the kernel has openat2: only ENOSYS (before 5.6) and EPERM (some seccomp
    /// filters) say it has not. Any other failure (no descriptor free, no memory) was this
    /// call's, not the kernel's, and must not choose the walk for the deleter's lifetime: the
    /// removals' own openat2 then fail, and say why.
    static func kernelHasOpenat2(_ root: FileDescriptor) -> Bool {
        let flags = UInt64(O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        switch valueOrErrno({ unsafe system_openat2(root.rawValue, ".", flags, UInt64(QW_RESOLVE_BENEATH)) }) {
        case .success(let raw):
            FileDescriptor(rawValue: raw).close()
            return true
        case .failure(let error):
            return error != .notImplemented && error != .notPermitted
        }
    }
}
