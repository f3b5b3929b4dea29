import QuotaWatchCore

/// SplitMix64: small, seedable, and the same on every platform.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// A ``TallyTree`` and a ``TreeModel`` driven through the same random operations: adds,
/// resizes, removes and moves of files (some hard-linked, some with links outside the tree)
/// and of whole directories.
struct RandomTreeSession {
    var random: SeededGenerator
    var model: TreeModel
    var tree: TallyTree
    var treeDirectory: [Int: DirectoryID]
    var treeFile: [Int: FileID] = [:]
    var nameCounter = 0
    /// Called with the model's number of every directory added, before anything changes in it.
    var onNewDirectory: (Int, inout TallyTree, DirectoryID) -> Void = { _, _, _ in }

    init(seed: UInt64) {
        random = SeededGenerator(state: seed)
        model = TreeModel(rootOwn: Usage(allocated: 4096, apparent: 4096))
        tree = TallyTree(
            root: FileStatus(
                device: 7, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096))
        treeDirectory = [0: tree.root]
    }

    func liveDirectories() -> [Int] { model.directories.indices.filter { model.directories[$0].isLive } }
    func liveFiles() -> [Int] { model.files.indices.filter { model.files[$0].isLive } }

    private mutating func freshName() -> [UInt8] {
        nameCounter += 1
        // Some names are not UTF-8 on purpose.
        return Array("n\(nameCounter)".utf8) + (nameCounter % 7 == 0 ? [0xff] : [])
    }

    private mutating func randomSize() -> Usage {
        let blocks = UInt64.random(in: 0...64, using: &random)
        return Usage(allocated: blocks * 512, apparent: UInt64.random(in: 0...(blocks * 512 + 100), using: &random))
    }

    /// One random operation on both; false when the one drawn did not apply (nothing to move, say).
    mutating func step() -> Bool {
        let operation = Int.random(in: 0..<100, using: &random)
        let directories = liveDirectories()
        let files = liveFiles()
        switch operation {
        case 0..<15:
            let parent = directories.randomElement(using: &random)!
            let name = freshName()
            let own = Usage(allocated: 4096 * UInt64.random(in: 1...2, using: &random), apparent: 4096)
            model.nextInode += 1
            model.directories.append(.init(parent: parent, name: name, own: own, inode: model.nextInode))
            let added = tree.addDirectory(
                named: name, in: treeDirectory[parent]!,
                status: FileStatus(
                    device: 7, inode: model.nextInode, kind: .directory, linkCount: 2,
                    apparentBytes: own.apparent, allocatedBytes: own.allocated))
            treeDirectory[model.directories.count - 1] = added
            onNewDirectory(model.directories.count - 1, &tree, added)
        case 15..<45:
            let parent = directories.randomElement(using: &random)!
            let name = freshName()
            let inode: UInt64
            if !files.isEmpty && Int.random(in: 0..<4, using: &random) == 0 {
                inode = model.files[files.randomElement(using: &random)!].inode
            } else {
                model.nextInode += 1
                inode = model.nextInode
                model.inodeUsage[inode] = randomSize()
            }
            model.files.append(.init(directory: parent, name: name, inode: inode))
            treeFile[model.files.count - 1] = tree.addFile(
                named: name, in: treeDirectory[parent]!, status: model.status(ofFileInode: inode))
        case 45..<60 where !files.isEmpty:
            let file = files.randomElement(using: &random)!
            let inode = model.files[file].inode
            model.inodeUsage[inode] = randomSize()
            let external: UInt64 = Int.random(in: 0..<5, using: &random) == 0 ? 1 : 0
            tree.updateFile(treeFile[file]!, status: model.status(ofFileInode: inode, extraLinks: external))
        case 60..<72 where !files.isEmpty:
            let file = files.randomElement(using: &random)!
            model.files[file].isLive = false
            tree.removeFile(treeFile[file]!)
        case 72..<82 where !files.isEmpty:
            let file = files.randomElement(using: &random)!
            // Now and then a rename within the same directory.
            let target =
                Int.random(in: 0..<4, using: &random) == 0
                ? model.files[file].directory : directories.randomElement(using: &random)!
            let name = freshName()
            model.files[file].directory = target
            model.files[file].name = name
            tree.moveFile(treeFile[file]!, to: treeDirectory[target]!, named: name)
        case 82..<92 where directories.count > 1:
            let moving = directories.filter { $0 != 0 }.randomElement(using: &random)!
            let targets = directories.filter { !model.isBelow($0, moving) }
            let target = targets.randomElement(using: &random)!
            let name = freshName()
            model.directories[moving].parent = target
            model.directories[moving].name = name
            tree.moveDirectory(treeDirectory[moving]!, to: treeDirectory[target]!, named: name)
        case 92..<100 where directories.count > 1:
            let removing = directories.filter { $0 != 0 }.randomElement(using: &random)!
            for index in model.directories.indices where model.isBelow(index, removing) {
                model.directories[index].isLive = false
            }
            for index in model.files.indices
            where model.files[index].isLive && !model.directories[model.files[index].directory].isLive {
                model.files[index].isLive = false
            }
            tree.removeDirectory(treeDirectory[removing]!)
        default:
            return false
        }
        return true
    }
}
