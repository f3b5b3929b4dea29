extension Errno {
    /// Why the kernel refused to remove a name, with the usual cause. The bare message
    /// ("Permission denied") sends the reader to the file, where the cause is most often its
    /// directory: unlink and rmdir need write and search permission on the directory, not on
    /// the file.
    package var removalFailure: String {
        switch self {
        case .permissionDenied:
            "\(self): its directory is not writable by this user, or a directory above it is not searchable"
        case .notPermitted:
            "\(self): the file is immutable or append-only (see lsattr), or its directory is sticky "
                + "and neither it nor the file belongs to this user"
        case .readOnlyFileSystem: "\(self): the file system is mounted read-only"
        case .busy: "\(self): it is in use as a mount point"
        default: description
        }
    }
}
