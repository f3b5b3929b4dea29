import QuotaWatchCore

/// What `du -s` would print for each directory of the root, by brute force: every inode
/// once per subtree, unreadable directories with their own inode only.
extension FakeFileSystem {
    struct DuDirectory {
        var path: FakePath
        var inode: InodeNumber
        var tally: Tally
    }

    /// Every directory the root's du would visit, the root first, parents before children.
    func duTotals() -> [DuDirectory] {
        var result: [DuDirectory] = []
        _ = du(Self.rootInode, at: FakePath(components: []), into: &result)
        return result.reversed()
    }

    private struct Subtree {
        var directoryUsage = Usage.zero
        var fileInodes: Set<InodeNumber> = []
        var names: UInt64 = 0
        var directories: UInt64 = 0
    }

    private func du(_ inode: InodeNumber, at path: FakePath, into result: inout [DuDirectory]) -> Subtree {
        let node = nodes[inode]!
        var subtree = Subtree(directoryUsage: Usage(allocated: node.allocated, apparent: node.apparent))
        if node.isReadable {
            for (name, child) in node.entries.sorted(by: { $1.key.lexicographicallyPrecedes($0.key) }) {
                let childNode = nodes[child]!
                if childNode.isDirectory {
                    let below = du(child, at: path.appending(name), into: &result)
                    subtree.directoryUsage.allocated += below.directoryUsage.allocated
                    subtree.directoryUsage.apparent += below.directoryUsage.apparent
                    subtree.fileInodes.formUnion(below.fileInodes)
                    subtree.names += below.names
                    subtree.directories += below.directories + 1
                } else {
                    subtree.fileInodes.insert(child)
                    subtree.names += 1
                }
            }
        }
        var usage = subtree.directoryUsage
        for file in subtree.fileInodes {
            usage.allocated += nodes[file]!.allocated
            usage.apparent += nodes[file]!.apparent
        }
        result.append(
            DuDirectory(
                path: path, inode: inode,
                tally: Tally(usage: usage, files: subtree.names, dirs: subtree.directories)))
        return subtree
    }
}
