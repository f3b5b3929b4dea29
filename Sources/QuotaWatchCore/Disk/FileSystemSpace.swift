/// The size and free space of one file system, as `statvfs` reports them and `df` shows them.
package struct FileSystemSpace: Sendable, Equatable {
    /// Every block of the file system (`f_blocks × f_frsize`).
    package var totalBytes: UInt64
    /// Free blocks, including those only root may use (`f_bfree × f_frsize`).
    package var freeBytes: UInt64
    /// Free blocks an unprivileged user may fill (`f_bavail × f_frsize`): what disk levels
    /// compare against, as `df`'s "Avail" column does.
    package var availableBytes: UInt64

    package init(totalBytes: UInt64, freeBytes: UInt64, availableBytes: UInt64) {
        self.totalBytes = totalBytes
        self.freeBytes = freeBytes
        self.availableBytes = availableBytes
    }

    /// The available share of the total, 0...1; 0 for a file system reporting no size.
    package var availableFraction: Double {
        totalBytes == 0 ? 0 : Double(availableBytes) / Double(totalBytes)
    }
}
