import Foundation
import QuotaWatchTestSupport

/// A reproducible stream of real file system operations in a watched root: everything a
/// seed chooses is decided by the seed and by this model of what exists, never by the file
/// system, so a seed always replays the same operations.
///
/// Every write is written back (fsync) at once. On ext4 the writeback of a fragmented file
/// can add a 4 KiB extent-tree block with no event, seconds later, and the daemon counts it at
/// its late re-stats or at a sync after sync(2) (see TempTree.writeBack and the README's
/// limits); the unwritten archives of RandomOperations+EventKinds test exactly that.
struct RandomOperations {
    let seed: UInt64
    /// Operations done so far, by kind.
    private(set) var counts: [String: Int] = [:]
    /// The last operations, newest last, for failure messages.
    private(set) var recent: [String] = []

    let tree: TempTree
    let root: TreePath
    let outside: TreePath
    var generator: SeededGenerator
    /// Directories below the root (the root included), regular files and symlinks, as this
    /// model believes them to be.
    var directories: [TreePath]
    var files: [TreePath] = []
    var symlinks: [TreePath] = []
    /// Files outside the root that hard links may point at.
    let outsideFiles: [TreePath]
    var serial = 0
    let maximumDirectories = 120
    /// Waits until the daemon has applied every change so far (a `status --sync`), once
    /// there is a daemon; a wait only, so the operations stay those of the seed.
    var catchUp: (() throws -> Void)?
    /// Mounts in the daemon's mount namespace (RandomOperations+Mounts.swift); nil: none made.
    var mounts: MountOperations?

    init(tree: TempTree, root: TreePath, outside: TreePath, seed: UInt64) throws {
        self.tree = tree
        self.root = root
        self.outside = outside
        self.seed = seed
        generator = SeededGenerator(seed: seed)
        directories = [root]
        outsideFiles = [outside / "target-1", outside / "target-2"]
        for (index, file) in outsideFiles.enumerated() { try tree.writeFile(file, byteCount: 30_000 * (index + 1)) }
    }

    var summary: String {
        "\(directories.count) directories, \(files.count) files, \(symlinks.count) symlinks; done: "
            + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }

    // MARK: One step

    mutating func step() throws {
        // Most operations need a few files to choose from.
        let roll = files.count < 5 ? 0 : random(0..<100)
        let room = directories.count < maximumDirectories
        switch roll {
        case 0..<10: try createFile()
        case 10..<16: try appendOrOverwrite()
        case 16..<20: try truncate()
        case 20..<25: try unlinkFile()
        case 25..<31 where room: try makeDirectory()
        case 31..<33 where room: try makeChain()
        case 33..<36: try removeSubtree()
        case 36..<43: try renameFile()
        case 43..<48: try renameDirectory()
        case 48..<54: try hardLink()
        case 54..<57: try symlink()
        case 57..<59: try moveOut()
        case 59..<61 where room: try moveIn()
        case 61..<63: try preallocate()
        // Sequences that race the daemon's crawls and watches (RandomOperations+Races.swift).
        case 63..<68 where room: try renameOverFreshLeaf()
        case 68..<72: try renameOverEmptyDirectory()
        case 72..<75: try swapFiles()
        case 75..<78: try swapDirectories()
        case 78..<81: try churnOneName()
        case 81..<85: try linkOutsideThenRenameHolder()
        case 85..<89: try moveOutAndBack()
        case 89..<92: try writeThroughOutsideName()
        case 92..<94: try lockAndUnlockDirectory()
        case 94..<96: try mountOrUnmount()
        // Exchanges, search permission, unwritten archives, tmpfs (RandomOperations+EventKinds.swift).
        case 96..<100: try eventKindOperation()
        default: try createFile()
        }
    }

    mutating func createFile() throws {
        let path = freshName(in: pick(directories))
        try tree.writeFile(path, byteCount: randomSize())
        try tree.writeBack(path)
        files.append(path)
        note("create", path)
    }

    private mutating func appendOrOverwrite() throws {
        let path = pick(files)
        if random(0..<3) == 0 {
            try tree.overwriteFile(path, at: random(0..<3_000_000), byteCount: random(1...20_000))
            try tree.writeBack(path)
            note("pwrite", path)
        } else {
            try tree.appendToFile(path, byteCount: randomSize())
            try tree.writeBack(path)
            note("append", path)
        }
    }

    private mutating func truncate() throws {
        let path = pick(files)
        let size = random(0..<4) == 0 ? random(0...80_000_000) : random(0...100_000)
        try tree.truncateFile(path, to: size)
        try tree.writeBack(path)
        note("truncate", path, "to \(size)")
    }

    private mutating func preallocate() throws {
        let path = pick(files)
        try tree.preallocate(path, offset: random(0...500_000), length: random(1...400_000))
        try tree.writeBack(path)
        note("fallocate", path)
    }

    private mutating func unlinkFile() throws {
        if !symlinks.isEmpty && random(0..<4) == 0 {
            let path = symlinks.remove(at: random(0..<symlinks.count))
            try tree.unlinkEntry(path)
            note("unlink symlink", path)
        } else {
            let path = files.remove(at: random(0..<files.count))
            try tree.unlinkEntry(path)
            note("unlink", path)
        }
    }

    mutating func makeDirectory() throws {
        let path = freshName(in: pick(directories))
        try tree.makeDirectory(path)
        directories.append(path)
        note("mkdir", path)
    }

    mutating func makeChain() throws {
        var path = pick(directories)
        for _ in 0..<random(2...6) {
            path = freshName(in: path)
            directories.append(path)
        }
        try tree.makeDirectories(path)
        try tree.writeFile(path / "bottom", byteCount: randomSize())
        try tree.writeBack(path / "bottom")
        files.append(path / "bottom")
        note("mkdir -p", path)
    }

    mutating func removeSubtree() throws {
        guard let path = smallSubtree() else { return try createFile() }
        try tree.removeSubtree(path)
        forget(below: path)
        note("rm -rf", path)
    }

    private mutating func renameFile() throws {
        let index = random(0..<files.count)
        let source = files[index]
        if random(0..<3) == 0 {
            // Over another file; rename does nothing when both names are one inode.
            let target = pick(files)
            guard target != source else { return }
            try tree.rename(source, to: target)
            if try !tree.exists(source) { files.remove(at: index) }
            note("rename over", source, "over \(target.reportPath)")
        } else {
            let target = freshName(in: pick(directories))
            try tree.rename(source, to: target)
            files[index] = target
            note("rename", source, "to \(target.reportPath)")
        }
    }

    mutating func renameDirectory() throws {
        guard directories.count > 1 else { return }
        let source = directories[random(1..<directories.count)]
        let candidates = directories.filter { !$0.isWithin(source) }
        let emptyOnes = emptyDirectories()
        let empty = candidates.filter { candidate in
            candidate != root && !isAncestor(candidate, of: source) && emptyOnes.contains(candidate)
        }
        let target: TreePath
        if !empty.isEmpty && random(0..<3) == 0 {
            target = pick(empty)
            directories.removeAll { $0 == target }
        } else {
            target = freshName(in: pick(candidates))
        }
        try tree.rename(source, to: target)
        relocate(source, to: target)
        note("rename directory", source, "to \(target.reportPath)")
    }

    private mutating func hardLink() throws {
        let target = random(0..<5) == 0 ? pick(outsideFiles) : pick(files)
        let path = freshName(in: pick(directories))
        try tree.makeHardLink(path, to: target)
        files.append(path)
        note("hard link", path, "to \(target.reportPath)")
    }

    private mutating func symlink() throws {
        let path = freshName(in: pick(directories))
        let target = random(0..<2) == 0 ? "../" + String(repeating: "x", count: random(1...200)) : "."
        try tree.makeSymlink(path, target: target)
        symlinks.append(path)
        note("symlink", path)
    }

    private mutating func moveOut() throws {
        guard let source = smallSubtree() else { return try createFile() }
        serial += 1
        try tree.rename(source, to: outside / "gone-\(serial)")
        forget(below: source)
        note("move out", source)
    }

    /// Builds a small subtree outside the root and moves it in.
    private mutating func moveIn() throws {
        serial += 1
        let staging = outside / "incoming-\(serial)"
        try tree.makeDirectory(staging)
        let target = freshName(in: pick(directories))
        var made: [TreePath] = [target]
        for index in 0..<random(0...3) {
            try tree.makeDirectory(staging / "sub-\(index)")
            made.append(target / "sub-\(index)")
            try tree.writeFile(staging / "sub-\(index)" / "file", byteCount: randomSize())
            files.append(target / "sub-\(index)" / "file")
        }
        try tree.writeFile(staging / "file", byteCount: randomSize())
        files.append(target / "file")
        try writeBack(files.filter { $0.isWithin(target) }, at: staging, for: target)
        try tree.rename(staging, to: target)
        directories += made
        note("move in", target)
    }

    /// Writes back `paths` (model paths below `modelPath`, found below `actualPath` for now)
    /// before their directory enters the root. The daemon stats the files it finds in a
    /// directory moved in once, when it lists it, and re-stats none of them later, so an
    /// ext4 extent-tree block added by a later writeback would never be counted (see
    /// TempTree.writeBack and the README's limits).
    func writeBack(_ paths: [TreePath], at actualPath: TreePath, for modelPath: TreePath) throws {
        for path in paths {
            guard let rest = path.relative(to: modelPath) else { continue }
            try tree.writeBack(actualPath.appending(rest))
        }
    }

    // MARK: The model

    /// A directory below the root holding at most a fifth of all directories, so that
    /// removals and moves out do not empty the tree that the other operations work on.
    mutating func smallSubtree() -> TreePath? {
        guard directories.count > 1 else { return nil }
        let path = directories[random(1..<directories.count)]
        let size = directories.filter { $0.isWithin(path) }.count
        return size <= max(3, directories.count / 5) ? path : nil
    }

    mutating func forget(below path: TreePath) {
        directories.removeAll { $0.isWithin(path) }
        files.removeAll { $0.isWithin(path) }
        symlinks.removeAll { $0.isWithin(path) }
    }

    mutating func relocate(_ source: TreePath, to target: TreePath) {
        func moved(_ path: TreePath) -> TreePath {
            guard let rest = path.relative(to: source) else { return path }
            return target.appending(rest)
        }
        directories = directories.map(moved)
        files = files.map(moved)
        symlinks = symlinks.map(moved)
    }

    func isAncestor(_ candidate: TreePath, of path: TreePath) -> Bool {
        path != candidate && path.isWithin(candidate)
    }

    /// The directories that hold nothing, in one pass over the model.
    func emptyDirectories() -> Set<TreePath> {
        var empty = Set(directories)
        for entry in directories + files + symlinks {
            if let parent = entry.parent { empty.remove(parent) }
        }
        return empty
    }

    // MARK: Randomness

    mutating func freshName(in directory: TreePath) -> TreePath {
        serial += 1
        let plain = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        let odd: [[UInt8]] = [[0x0A], [0x80], [0xFF], [0x5C], [0xC3, 0xA9], [0x20], [0xE2, 0x82]]
        var name: [UInt8] = []
        for _ in 0..<random(1...6) {
            name += random(0..<6) == 0 ? pick(odd) : [pick(plain)]
        }
        return directory.appending(name + Array("-\(serial)".utf8))
    }

    mutating func randomSize() -> Int {
        switch random(0..<10) {
        case 0: return 0
        case 1..<5: return random(1...4_000)
        case 5..<9: return random(4_000...60_000)
        default: return random(60_000...400_000)
        }
    }

    mutating func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
    mutating func random(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
    mutating func pick<Element>(_ elements: [Element]) -> Element { elements[random(0..<elements.count)] }

    mutating func note(_ kind: String, _ path: TreePath, _ detail: String = "") {
        counts[kind, default: 0] += 1
        let line = "\(kind) \(ReportComparison.show(path.reportPath)) \(ReportComparison.show(detail))"
        recent.append(line)
        if recent.count > 20 { recent.removeFirst() }
        Self.trace?.write(Data("\(counts.values.reduce(0, +)) \(line)\n".utf8))
    }

    /// QUOTAWATCH_TEST_TRACE=FILE appends every operation to FILE, numbered, to find what
    /// happened to one name long before a failure.
    private static let trace: FileHandle? = {
        guard let path = ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_TRACE"],
            FileManager.default.createFile(atPath: path, contents: nil)
        else { return nil }
        return FileHandle(forWritingAtPath: path)
    }()
}
