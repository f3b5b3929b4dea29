/// A file handle as fanotify reports it and `name_to_handle_at` returns it: unique to one
/// object of one file system for as long as the object lives (the generation number in it
/// tells a reused inode number apart), and the same for every path and bind mount of it.
package struct FileHandleKey: Hashable, Sendable {
    /// statfs's `f_fsid`: `val[0]` in the low half, `val[1]` in the high half.
    package var fileSystem: UInt64
    package var type: Int32
    package var bytes: [UInt8]

    package init(fileSystem: UInt64, type: Int32, bytes: [UInt8]) {
        self.fileSystem = fileSystem
        self.type = type
        self.bytes = bytes
    }

    /// One call for the bytes: hashing them one by one would dominate an event's cost.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(fileSystem)
        hasher.combine(type)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
