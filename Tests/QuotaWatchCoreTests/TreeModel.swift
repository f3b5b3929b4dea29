import QuotaWatchCore

/// A deliberately naive model of a directory tree: totals are recomputed from scratch by
/// walking everything, so it can judge the incremental ``TallyTree``.
struct TreeModel {
    struct Directory {
        var parent: Int?
        var name: [UInt8]
        var own: Usage
        var inode: UInt64
        var isLive = true
    }

    struct File {
        var directory: Int
        var name: [UInt8]
        var inode: UInt64
        var isLive = true
    }

    var directories: [Directory]
    var files: [File] = []
    var inodeUsage: [UInt64: Usage] = [:]
    var nextInode: UInt64 = 100
    /// The link count the kernel reports for an inode where it is not the number of names
    /// here: links outside the tree, or one directory shown at two places by a bind mount
    /// (two names here, one link). du remembers only inodes with several links.
    var reportedLinks: [UInt64: UInt64] = [:]

    init(rootOwn: Usage) {
        directories = [Directory(parent: nil, name: [], own: rootOwn, inode: 1)]
    }

    func isBelow(_ directory: Int, _ ancestor: Int) -> Bool {
        var current: Int? = directory
        while let index = current {
            if index == ancestor { return true }
            current = directories[index].parent
        }
        return false
    }

    func names(of inode: UInt64) -> Int { files.filter { $0.isLive && $0.inode == inode }.count }

    /// du -s for one directory, by brute force.
    func tally(of directory: Int) -> Tally {
        var usage = Usage.zero
        var dirs: UInt64 = 0
        for (index, record) in directories.enumerated() where record.isLive && isBelow(index, directory) {
            usage.allocated += record.own.allocated
            usage.apparent += record.own.apparent
            if index != directory { dirs += 1 }
        }
        var seen = Set<UInt64>()
        var fileCount: UInt64 = 0
        for file in files where file.isLive && isBelow(file.directory, directory) {
            fileCount += 1
            let countedAtEachName = reportedLinks[file.inode].map { $0 <= 1 } ?? false
            if countedAtEachName || seen.insert(file.inode).inserted {
                let inodeUsage = inodeUsage[file.inode]!
                usage.allocated += inodeUsage.allocated
                usage.apparent += inodeUsage.apparent
            }
        }
        return Tally(usage: usage, files: fileCount, dirs: dirs)
    }

    func status(ofFileInode inode: UInt64, extraLinks: UInt64 = 0) -> FileStatus {
        let usage = inodeUsage[inode]!
        return FileStatus(
            device: 7, inode: inode, kind: .regular,
            linkCount: (reportedLinks[inode] ?? UInt64(names(of: inode))) + extraLinks,
            apparentBytes: usage.apparent, allocatedBytes: usage.allocated)
    }
}
