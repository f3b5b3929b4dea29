/// One directory of a report as the tree holds it: the path still raw bytes, so the engine
/// hands it over without escaping it; ``DirectoryReport`` is its escaped, encoded form.
package struct DirectoryRow: Equatable, Sendable {
    /// Relative to the root: empty for the root.
    package var path: [UInt8]
    package var tally: Tally

    package init(path: [UInt8], tally: Tally) {
        self.path = path
        self.tally = tally
    }

    package var report: DirectoryReport {
        DirectoryReport(
            path: path.isEmpty ? "." : EscapedName.string(path), allocated: tally.allocated,
            apparent: tally.apparent, files: tally.files, dirs: tally.dirs)
    }

    /// Tree order: parents before children, siblings in byte order of their names. Comparing
    /// the joined paths with "/" ranked below every byte is the same as comparing their
    /// components one by one, since no name holds a "/".
    package static func treeOrder(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        let slash = UInt8(ascii: "/")
        for (left, right) in zip(lhs, rhs) where left != right {
            if left == slash { return true }
            if right == slash { return false }
            return left < right
        }
        return lhs.count < rhs.count
    }
}
