import QuotaWatchTestSupport

/// Sequences of operations issued back to back that race the daemon: a crawl of a new
/// directory against a rename over it, a watch on an inode the daemon knows under another
/// name, a name that comes and goes faster than its events are read.
extension RandomOperations {
    /// `makedirs` of a fresh chain, then at once a rename of an existing directory over its
    /// empty leaf, one to ten times in a row: the daemon may list the chain's last parent
    /// between the mkdir and the rename, and so stat one inode and watch another.
    mutating func renameOverFreshLeaf() throws {
        // The window is short, and a daemon far behind never sees it: start caught up.
        try catchUp?()
        for _ in 0..<random(1...10) {
            guard let source = someDirectoryBelowRoot() else { return try createFile() }
            var leaf = pick(directories.filter { !$0.isWithin(source) })
            var chain: [TreePath] = []
            for _ in 0..<random(1...3) {
                leaf = freshName(in: leaf)
                chain.append(leaf)
            }
            try tree.makeDirectories(leaf)
            try tree.rename(source, to: leaf)
            directories += chain.dropLast()
            relocate(source, to: leaf)
            note("rename over fresh leaf", source, "to \(leaf.reportPath)")
        }
    }

    /// A rename of a directory over an empty directory that has been there for a while, so
    /// that the daemon watches both before the rename.
    mutating func renameOverEmptyDirectory() throws {
        guard let source = someDirectoryBelowRoot() else { return try createFile() }
        let empty = emptyDirectories()
        let targets = directories.filter { candidate in
            candidate != root && !candidate.isWithin(source) && !isAncestor(candidate, of: source)
                && empty.contains(candidate)
        }
        guard !targets.isEmpty else { return try makeDirectory() }
        let target = pick(targets)
        try tree.rename(source, to: target)
        directories.removeAll { $0 == target }
        relocate(source, to: target)
        note("rename over empty directory", source, "over \(target.reportPath)")
    }

    /// Two files trade names through a temporary third name.
    mutating func swapFiles() throws {
        let first = pick(files)
        let second = pick(files)
        guard first != second, let parent = first.parent else { return }
        let temporary = freshName(in: parent)
        try tree.rename(first, to: temporary)
        try tree.rename(second, to: first)
        try tree.rename(temporary, to: second)
        // The two names stay in the model; only what they hold changed.
        note("swap files", first, "with \(second.reportPath)")
    }

    /// Two directories, neither inside the other, trade names through a temporary third name.
    mutating func swapDirectories() throws {
        guard let first = someDirectoryBelowRoot(), let parent = first.parent else { return try createFile() }
        let others = directories.filter { $0 != root && !$0.isWithin(first) && !first.isWithin($0) }
        guard !others.isEmpty else { return try makeDirectory() }
        let second = pick(others)
        let temporary = freshName(in: parent)
        try tree.rename(first, to: temporary)
        relocate(first, to: temporary)
        try tree.rename(second, to: first)
        relocate(second, to: first)
        try tree.rename(temporary, to: second)
        relocate(temporary, to: second)
        note("swap directories", first, "with \(second.reportPath)")
    }

    /// mkdir, fill and `rm -rf` of one name, several times in a row; the last copy may stay.
    mutating func churnOneName() throws {
        let path = freshName(in: pick(directories))
        let rounds = random(2...6)
        for round in 1...rounds {
            var made: [TreePath] = [path]
            var written: [TreePath] = []
            try tree.makeDirectory(path)
            for index in 0..<random(1...3) { written.append(path / "f\(index)") }
            if random(0..<2) == 0 {
                try tree.makeDirectory(path / "sub")
                made.append(path / "sub")
                written.append(path / "sub" / "g")
            }
            for file in written { try tree.writeFile(file, byteCount: randomSize()) }
            if round == rounds && random(0..<2) == 0 {
                for file in written { try tree.writeBack(file) }
                directories += made
                files += written
                return note("mkdir, fill and rm -rf, kept", path, "\(rounds) rounds")
            }
            try tree.removeSubtree(path)
        }
        note("mkdir, fill and rm -rf", path, "\(rounds) rounds")
    }

    /// Hard links to files outside the root, then a rename of the directory that holds them
    /// (or of its parent).
    mutating func linkOutsideThenRenameHolder() throws {
        guard let holder = someDirectoryBelowRoot() else { return try createFile() }
        for _ in 0..<random(1...3) {
            let link = freshName(in: holder)
            try tree.makeHardLink(link, to: pick(outsideFiles))
            files.append(link)
        }
        var moved = holder
        if random(0..<3) == 0, let parent = holder.parent, parent != root { moved = parent }
        let target = freshName(in: pick(directories.filter { !$0.isWithin(moved) }))
        try tree.rename(moved, to: target)
        relocate(moved, to: target)
        note("link outside, rename holder", moved, "to \(target.reportPath)")
    }

    /// A subtree moved out of the root, perhaps changed out there, and moved back in under
    /// another name: into an existing directory, a fresh chain, or over a fresh chain's leaf.
    mutating func moveOutAndBack() throws {
        guard let source = smallSubtree() else { return try createFile() }
        serial += 1
        let away = outside / "away-\(serial)"
        try tree.rename(source, to: away)
        let extra = random(0..<2) == 0 ? Array("written-outside-\(serial)".utf8) : nil
        if let extra { try tree.writeFile(away / extra, byteCount: randomSize()) }
        let staying = directories.filter { !$0.isWithin(source) }
        var parent = pick(staying)
        var chain: [TreePath] = []
        let shape = random(0..<3)
        if shape > 0 {
            for _ in 0..<random(1...3) {
                parent = freshName(in: parent)
                chain.append(parent)
            }
            try tree.makeDirectories(parent)
        }
        // Over the chain's empty leaf, or to a fresh name.
        let target = shape == 2 ? parent : freshName(in: parent)
        try writeBack(files.filter { $0.isWithin(source) }, at: away, for: source)
        if let extra { try tree.writeBack(away / extra) }
        try tree.rename(away, to: target)
        directories += shape == 2 ? chain.dropLast() : chain[...]
        relocate(source, to: target)
        if let extra { files.append(target / extra) }
        note("move out and back", source, "as \(target.reportPath)")
    }

    /// Writes through the outside name of a file that may have hard links in the root: no
    /// event reaches the root, so only a sync's re-stat can count it.
    mutating func writeThroughOutsideName() throws {
        let file = pick(outsideFiles)
        switch random(0..<3) {
        case 0:
            try tree.truncateFile(file, to: random(0...200_000))
            try tree.writeBack(file)
            note("truncate outside name", file)
        case 1:
            try tree.overwriteFile(file, at: random(0...200_000), byteCount: random(1...40_000))
            try tree.writeBack(file)
            note("pwrite outside name", file)
        default:
            try tree.preallocate(file, offset: random(0...100_000), length: random(1...100_000))
            try tree.writeBack(file)
            note("fallocate outside name", file)
        }
    }

    /// chmod 000 and straight back: two attribute events, and a directory that a crawl at
    /// the wrong moment could not read without privileges.
    mutating func lockAndUnlockDirectory() throws {
        let directory = pick(directories)
        try tree.setMode(directory, 0o000)
        try tree.setMode(directory, 0o755)
        note("chmod 000 and back", directory)
    }

    /// A directory other than the root, if there is one.
    mutating func someDirectoryBelowRoot() -> TreePath? {
        guard directories.count > 1 else { return nil }
        return directories[random(1..<directories.count)]
    }
}
