import QuotaWatchPolicy
import QuotaWatchSystem

extension CleanItem {
    /// The item with its numbers as the file has them now, read relative to `root`; nil when
    /// the name leads to another inode, a directory or nothing any more (the deleter would
    /// refuse it, and the page must not offer it).
    func restatted(relativeTo root: FileDescriptor) -> CleanItem? {
        guard let status = try? root.status(of: path), status.kind != .directory,
            status.device == device, status.inode == inode
        else { return nil }
        var fresh = self
        fresh.modifiedNanoseconds = status.modifiedNanoseconds
        fresh.allocatedBytes = status.allocatedBytes
        fresh.apparentBytes = status.apparentBytes
        fresh.linkCount = status.linkCount
        return fresh
    }
}
