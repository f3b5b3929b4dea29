import Foundation
import QuotaWatchTestSupport

/// Operation kinds that other watchers' suites and du's own tests found the daemon lacking:
/// exchange renames, directories that lose search permission, fragmented files with old
/// mtimes moved in before writeback, directories made and filled at once, and timestamps at
/// the extremes.
extension RandomOperations {
    /// Timestamps near what an `Int64` of nanoseconds holds trapped the daemon until the
    /// timestamp arithmetic was made total; QUOTAWATCH_TEST_EXTREME_TIMES=0 leaves them out
    /// (to tell a timestamp failure from another when replaying a seed).
    static let setsExtremeTimestamps = ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_EXTREME_TIMES"] != "0"

    mutating func eventKindOperation() throws {
        switch random(0..<12) {
        case 0..<3: try exchangeEntries()
        case 3: try exchangeWithOutside()
        case 4..<6: try toggleSearchPermission()
        case 6..<8: try moveInUnwrittenArchive()
        case 8..<10 where directories.count < maximumDirectories: try makeThenFill()
        case 10 where Self.setsExtremeTimestamps: try setExtremeTimestamp()
        default: try exchangeEntries()
        }
    }

    /// renameat2(RENAME_EXCHANGE) of two entries of the root, files, directories and
    /// symlinks alike (a directory may trade with a file), neither above the other.
    private mutating func exchangeEntries() throws {
        let entries = Array(directories.dropFirst()) + files + symlinks
        guard entries.count >= 2 else { return try createFile() }
        let one = pick(entries)
        let other = pick(entries)
        guard one != other, !one.isWithin(other), !other.isWithin(one) else { return }
        try tree.exchange(one, other)
        func swapped(_ path: TreePath) -> TreePath {
            if let rest = path.relative(to: one) { return other.appending(rest) }
            if let rest = path.relative(to: other) { return one.appending(rest) }
            return path
        }
        directories = directories.map(swapped)
        files = files.map(swapped)
        symlinks = symlinks.map(swapped)
        note("exchange", one, "with \(other.reportPath)")
    }

    /// An entry of the root traded for a directory built outside (an atomic deploy step): the
    /// staged directory comes in, the root's entry goes out.
    private mutating func exchangeWithOutside() throws {
        guard let inside = smallSubtree() ?? files.randomElement(using: &generator) else { return try createFile() }
        serial += 1
        let staging = outside / "release-\(serial)"
        try tree.makeDirectory(staging)
        var made: [TreePath] = []
        for index in 0..<random(0...2) {
            try tree.makeDirectory(staging / "part-\(index)")
            made.append(inside / "part-\(index)")
            try tree.writeFile(staging / "part-\(index)" / "file", byteCount: randomSize())
        }
        try tree.writeFile(staging / "file", byteCount: randomSize())
        try tree.exchange(inside, staging)
        forget(below: inside)
        directories += [inside] + made
        files += [inside / "file"] + made.map { $0 / "file" }
        note("exchange with outside", inside)
    }

    /// chmod to read without search (644 or 444) or back to 755. As root it is a pair of
    /// attribute events only; as an ordinary user the directory then counts its own inode
    /// alone, as du does, and regaining search permission lists it again.
    private mutating func toggleSearchPermission() throws {
        guard let directory = someDirectoryBelowRoot() else { return try createFile() }
        let current = try tree.mode(directory)
        let mode: mode_t = current == 0o755 ? (random(0..<2) == 0 ? 0o644 : 0o444) : 0o755
        try tree.setMode(directory, mode)
        note("chmod \(String(mode, radix: 8))", directory)
    }

    /// A fragmented file with an old mtime, as tar -x, cp -a and rsync -a leave it, moved in
    /// before writeback, alone or in an unpacked directory: never written back here, so the
    /// checkpoint's sync(2) adds its extent-tree block with no event.
    private mutating func moveInUnwrittenArchive() throws {
        serial += 1
        let target = freshName(in: pick(directories))
        let old = random(0..<3) == 0 ? random(-2_000_000_000...0) : random(0...1_700_000_000)
        if random(0..<2) == 0 {
            let staged = outside / "archived-\(serial)"
            try makeFragmentedFile(staged, mtime: old)
            try tree.rename(staged, to: target)
            files.append(target)
        } else {
            let staging = outside / "unpacked-\(serial)"
            try tree.makeDirectory(staging)
            var made: [TreePath] = [target]
            for index in 0..<random(0...2) {
                try tree.makeDirectory(staging / "sub-\(index)")
                made.append(target / "sub-\(index)")
                try makeFragmentedFile(staging / "sub-\(index)" / "file", mtime: old)
                files.append(target / "sub-\(index)" / "file")
            }
            try makeFragmentedFile(staging / "file", mtime: old)
            files.append(target / "file")
            try tree.setTimes(staging, seconds: old)
            try tree.rename(staging, to: target)
            directories += made
        }
        note("move in unwritten archive", target)
    }

    /// One-byte islands 8 KiB apart: more extents than an ext4 inode holds.
    private mutating func makeFragmentedFile(_ path: TreePath, mtime: Int) throws {
        let islands = random(2...40)
        try tree.makeSparseFile(path, size: islands * 8192, dataOffsets: (0..<islands).map { $0 * 8192 })
        try tree.setTimes(path, seconds: mtime)
    }

    /// `mkdir -p d/n/deep && echo x > d/n/deep/f`: on tmpfs every entry grows its directory by
    /// 20 B, and the entries come while the daemon lists the new directories.
    private mutating func makeThenFill() throws {
        let top = freshName(in: pick(directories))
        let deep = freshName(in: top)
        try tree.makeDirectories(deep)
        try tree.writeFile(deep / "f", contents: Array("x\n".utf8))
        directories += [top, deep]
        files.append(deep / "f")
        for _ in 0..<random(0...3) {
            let extra = freshName(in: random(0..<2) == 0 ? top : deep)
            try tree.writeFile(extra, contents: Array("y\n".utf8))
            files.append(extra)
        }
        note("mkdir -p and fill", deep)
    }

    /// `touch -h -d @…` at or past what the file system or an `Int64` of nanoseconds holds;
    /// the kernel clamps to the file system's range.
    private mutating func setExtremeTimestamp() throws {
        let entries = directories + files + symlinks
        let path = pick(entries)
        let seconds = pick([9_223_372_036, -9_223_372_036, 9_223_372_037, 253_402_300_799, -1, 0, 4_294_967_295])
        try tree.setTimes(path, seconds: seconds)
        note("touch -d @\(seconds)", path)
    }
}
