import QuotaWatchCore

extension FakeFileSystem {
    /// `renameat2(RENAME_EXCHANGE)`: the two names trade inodes, whatever they are (a
    /// directory may trade with a file), neither may be above the other, and nothing is
    /// removed. Like the kernel it queues two rename pairs with their own cookies, the first
    /// moving `first`'s inode to `second`, and no removal.
    mutating func exchange(_ first: FakePath, _ second: FakePath) throws(FakeError) {
        let (firstParent, firstInode) = try existingEntry(first)
        let (secondParent, secondInode) = try existingEntry(second)
        guard firstInode != secondInode else { return }
        for (moved, destination) in [(firstInode, secondParent), (secondInode, firstParent)] {
            var ancestor: InodeNumber? = destination
            while let current = ancestor {
                if current == moved { throw .invalidMove }
                ancestor = nodes[current]!.parent
            }
        }
        nodes[firstParent]!.entries[first.name] = secondInode
        nodes[secondParent]!.entries[second.name] = firstInode
        if nodes[firstInode]!.isDirectory { nodes[firstInode]!.parent = secondParent }
        if nodes[secondInode]!.isDirectory { nodes[secondInode]!.parent = firstParent }
        let halves = [
            (firstInode, firstParent, first.name, secondParent, second.name),
            (secondInode, secondParent, second.name, firstParent, first.name),
        ]
        for (inode, fromParent, fromName, toParent, toName) in halves {
            let cookie = nextCookie
            nextCookie &+= 1
            let isDirectory = nodes[inode]!.isDirectory
            let flag: InotifyMask = isDirectory ? .isDirectory : []
            notify(fromParent, [.movedFrom, flag], fromName, cookie: cookie)
            notify(toParent, [.movedTo, flag], toName, cookie: cookie)
            if isDirectory { notifySelf(inode, [.moveSelf, .isDirectory]) }
        }
    }
}
