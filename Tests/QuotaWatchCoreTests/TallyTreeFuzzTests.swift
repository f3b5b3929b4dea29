import QuotaWatchCore
import Testing

/// The tree's own bookkeeping under the calls a live tree makes when the file system is ahead
/// of its events: directories on other devices (mounts under ROOT), one inode at several
/// names that each report one link (a bind mount shows a directory twice), link counts that
/// go up and down, names whose inode is replaced, moves across devices. No model of the
/// totals here (``TallyTreeRandomizedTests`` has one); what must hold after every call is
/// that the indexes and lists agree with the records, since a stale entry traps later,
/// in a table's rehash, far from the call that left it (a daemon of the sweep died so).
@Suite("TallyTree bookkeeping under hostile call sequences")
struct TallyTreeFuzzTests {
    @Test(arguments: [1, 2, 3, 7, 10, 53, 54, 58] as [UInt64])
    func everyCallKeepsTheIndexesSound(seed: UInt64) {
        var fuzz = TreeFuzz(seed: seed)
        for step in 0..<4000 {
            let operation = fuzz.step()
            let problems = fuzz.tree.consistencyViolations()
            guard problems.isEmpty else {
                Issue.record("seed \(seed), step \(step), after \(operation): \(problems)")
                return
            }
        }
        #expect(fuzz.tree.fileCount > 0 || fuzz.tree.directoryCount >= 1, "seed \(seed): the tree was used")
    }
}

/// Random calls on a ``TallyTree``, chosen among the entries it holds now.
private struct TreeFuzz {
    var random: SeededGenerator
    var tree: TallyTree
    var counter: UInt64 = 1

    init(seed: UInt64) {
        random = SeededGenerator(state: seed)
        tree = TallyTree(
            root: FileStatus(
                device: 7, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096))
    }

    mutating func fresh() -> UInt64 {
        counter += 1
        return counter
    }

    mutating func pick<T>(_ values: [T]) -> T? { values.randomElement(using: &random) }

    /// A small inode pool, so inodes meet again across names and devices.
    mutating func inode(reusing files: [FileID]) -> UInt64 {
        if let file = pick(files), Int.random(in: 0..<3, using: &random) == 0 { return tree.inode(of: file) }
        return UInt64.random(in: 2...400, using: &random)
    }

    mutating func fileStatus(device: UInt64, inode: UInt64) -> FileStatus {
        let blocks = UInt64.random(in: 0...16, using: &random)
        return FileStatus(
            device: device, inode: inode, kind: .regular, linkCount: UInt64.random(in: 1...3, using: &random),
            apparentBytes: UInt64.random(in: 0...(blocks * 512 + 10), using: &random), allocatedBytes: blocks * 512)
    }

    mutating func name() -> [UInt8] { Array("n\(fresh())".utf8) }

    /// One call; returns what it was, for the failure message.
    mutating func step() -> String {
        let directories = tree.subtree(of: tree.root)
        let files = directories.flatMap { tree.files(in: $0) }
        let movable = directories.filter { $0 != tree.root }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<12:
            let parent = pick(directories)!
            // Now and then a mount: a directory on a device of its own.
            let device = Int.random(in: 0..<5, using: &random) == 0 ? 8 : tree.device(of: parent)
            let status = FileStatus(
                device: device, inode: fresh() + 1000, kind: .directory, linkCount: 2, apparentBytes: 4096,
                allocatedBytes: 4096)
            tree.addDirectory(named: name(), in: parent, status: status)
            return "addDirectory"
        case 12..<40:
            let parent = pick(directories)!
            let status = fileStatus(device: tree.device(of: parent), inode: inode(reusing: files))
            tree.addFile(named: name(), in: parent, status: status)
            return "addFile inode \(status.inode) links \(status.linkCount)"
        case 40..<55:
            guard let file = pick(files) else { return "nothing" }
            let replaced = Int.random(in: 0..<6, using: &random) == 0
            let inode = replaced ? inode(reusing: files) : tree.inode(of: file)
            let device = tree.device(of: tree.directory(containing: file))
            let status = fileStatus(device: device, inode: inode)
            tree.updateFile(file, status: status)
            return "updateFile inode \(inode) links \(status.linkCount)"
        case 55..<65:
            guard let file = pick(files) else { return "nothing" }
            tree.removeFile(file)
            return "removeFile"
        case 65..<77:
            guard let file = pick(files) else { return "nothing" }
            let target = pick(directories)!
            let newName = name()
            tree.moveFile(file, to: target, named: newName)
            return "moveFile"
        case 77..<85:
            guard let moving = pick(movable) else { return "nothing" }
            guard let target = pick(directories.filter { !tree.isDescendant($0, of: moving) }) else { return "nothing" }
            tree.moveDirectory(moving, to: target, named: name())
            return "moveDirectory"
        case 85..<90:
            guard let removing = pick(movable) else { return "nothing" }
            tree.removeDirectory(removing)
            return "removeDirectory"
        case 90..<95:
            guard let directory = pick(movable) else { return "nothing" }
            let status = FileStatus(
                device: tree.device(of: directory), inode: fresh() + 1000, kind: .directory, linkCount: 2,
                apparentBytes: 4096 * UInt64.random(in: 1...3, using: &random), allocatedBytes: 4096)
            tree.updateDirectory(directory, status: status)
            return "updateDirectory"
        default:
            guard let file = pick(files) else { return "nothing" }
            let device = tree.device(of: tree.directory(containing: file))
            var status = fileStatus(device: device, inode: tree.inode(of: file))
            status.linkCount = 1
            tree.convertLinkedFilesToSingleNamed(device: device, status: status)
            return "convertLinkedFilesToSingleNamed inode \(status.inode)"
        }
    }
}
