import QuotaWatchSystem

/// The deleter the configured cleaners remove through.
///
/// An eviction checks every name it picks, and in a directory far over its quota that is
/// nearly every name in it: tens of thousands in a large cache, in a dry run as in a real one.
/// Asking `/proc` for each (``OpenWriters/first(device:inode:)``, one stat per open descriptor
/// on the machine, about 2 ms with a few thousand) made such a run outlive the runner's
/// timeout and report nothing. The open-for-writing check therefore reads `/proc` through a
/// shared ``OpenWritersSnapshot``: at most once per its maximum age (100 ms) however many names
/// are checked, the trade-off `quotawatch clean` already makes (a file opened for writing less
/// than that before its turn may be missed; every other check of the deleter is unchanged).
enum CleanupDeleter {
    static func make(
        root: FileDescriptor, dryRun: Bool, isProtected: @escaping Deleter.Protection, writers: OpenWritersSnapshot
    ) throws(Errno) -> Deleter {
        try Deleter(
            root: root, dryRun: dryRun, isProtected: isProtected,
            openWriter: { identity throws(Errno) in try writers.check(identity) })
    }
}
