import QuotaWatchCore

/// Why a name was left alone. Every reason names what was found, so a report can say so.
package enum SkipReason: Error, Sendable, Equatable, CustomStringConvertible {
    /// The protection predicate (protect globs, `protect: true` rules, `Documents/`) said no.
    case protected
    /// The path is ROOT itself, which is never deleted.
    case root
    /// The path is absolute, empty, or has an empty, `.` or `..` component.
    case outsideRoot
    /// This component of the path is a symlink now.
    case symlinkInPath([UInt8])
    /// This component is on another file system (a mount point under ROOT).
    case otherDevice([UInt8])
    /// This component is a mount point of the same file system (a bind mount): never crossed,
    /// whatever is mounted there.
    case mountPoint([UInt8])
    /// This component of the path is no longer a directory.
    case notADirectory([UInt8])
    /// This component of the path no longer exists.
    case gone([UInt8])
    /// The name now leads to another inode than the one chosen.
    case changedInode(expected: FileIdentity, found: FileIdentity)
    /// The file was written (or renamed, linked, chmod'ed) after it was chosen as idle.
    case changedSinceChosen
    /// A process holds the file open for writing (through the table of this thread, when the
    /// thread has its own).
    case openForWriting(processID: Int32, threadID: Int32? = nil)
    /// A process has the file mapped shared and writable: it can write it with no descriptor.
    case mappedForWriting(processID: Int32)
    /// `/proc` could not show every process, and the kernel refused a write lease: another
    /// process has the file open.
    case openUnseen(hiddenProcesses: Int)
    /// `/proc` could not show every process, and a write lease, which would have ruled out the
    /// others, could not be taken (not the file's owner and no `CAP_LEASE`, or no leases here).
    case writersUnverifiable(hiddenProcesses: Int, lease: Errno)
    /// `/proc` could not be read, so open writers could not be ruled out.
    case openWritersUnknown(Errno)
    /// Inside a directory tree: the directory still holds entries that were kept.
    case notEmpty
    /// Inside a directory tree: the kernel refused this entry.
    case cannotRemove(Errno)
    /// Inside a directory tree: this directory lies deeper than the deleter descends.
    case tooDeep([UInt8])

    package var description: String {
        switch self {
        case .protected: "protected"
        case .root: "it is ROOT itself"
        case .outsideRoot: "the path is not a plain path inside ROOT"
        case .symlinkInPath(let path): "'\(HumanText.name(path))' is a symlink"
        case .otherDevice(let path): "'\(HumanText.name(path))' is on another file system"
        case .mountPoint(let path): "'\(HumanText.name(path))' is a mount point (never crossed)"
        case .notADirectory(let path): "'\(HumanText.name(path))' is not a directory"
        case .gone(let path): "'\(HumanText.name(path))' is gone"
        case .changedInode(let expected, let found): "the name now leads to \(found), not \(expected)"
        case .changedSinceChosen: "it changed after it was chosen as idle (its ctime moved on)"
        case .openForWriting(let processID, let threadID):
            threadID.map { "open for writing by pid \(processID) (thread \($0), with its own descriptor table)" }
                ?? "open for writing by pid \(processID)"
        case .mappedForWriting(let processID): "mapped shared and writable by pid \(processID)"
        case .openUnseen(let hidden):
            "open by another process: the kernel refused a write lease "
                + "(/proc cannot show the descriptors of \(hidden) process(es) of other users)"
        case .writersUnverifiable(let hidden, let lease):
            "cannot rule out a writer: /proc cannot show the descriptors of \(hidden) process(es) "
                + "of other users, and a write lease could not be taken (\(lease); it needs the file's "
                + "owner or CAP_LEASE)"
        case .openWritersUnknown(let error): "cannot tell whether it is open for writing (/proc: \(error))"
        case .notEmpty: "entries below it were kept"
        case .cannotRemove(let error): error.removalFailure
        case .tooDeep(let path):
            "'\(HumanText.name(path))' is nested deeper than \(Deleter.maximumDepth) directories"
        }
    }

    /// A short stable name for logs and JSON.
    package var code: String {
        switch self {
        case .protected: "protected"
        case .root: "root"
        case .outsideRoot: "outside_root"
        case .symlinkInPath: "symlink_in_path"
        case .otherDevice: "other_device"
        case .mountPoint: "mount_point"
        case .notADirectory: "not_a_directory"
        case .gone: "gone"
        case .changedInode: "changed_inode"
        case .changedSinceChosen: "changed_since_chosen"
        case .openForWriting: "open_for_writing"
        case .mappedForWriting: "mapped_for_writing"
        case .openUnseen: "open_unseen"
        case .writersUnverifiable: "writers_unverifiable"
        case .openWritersUnknown: "open_writers_unknown"
        case .notEmpty: "not_empty"
        case .cannotRemove: "cannot_remove"
        case .tooDeep: "too_deep"
        }
    }
}
