/// A directory's device and inode: what a bind mount shows twice, at two paths.
package struct DirectoryIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
