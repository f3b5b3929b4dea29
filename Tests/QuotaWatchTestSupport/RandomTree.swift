/// Builds a random but reproducible tree: nested directories, files of many
/// sizes, sparse and fallocated files, hard links between any directories
/// (and to files outside the root), symlinks, FIFOs, and names that are not
/// UTF-8 or hold newlines and backslashes.
public struct RandomTree {
    public let seed: UInt64
    /// What was made, for failure messages.
    public private(set) var summary: [String: Int] = [:]

    private var generator: SeededGenerator
    private var directories: [TreePath]
    private var files: [TreePath]
    private var taken: Set<TreePath>

    /// Builds `operationCount` entries below `root` of `tree`.
    /// `outsideFiles` are existing files outside `root` that hard links
    /// may point at.
    public static func build(
        in tree: TempTree,
        under root: TreePath = .root,
        seed: UInt64,
        operationCount: Int = 250,
        maximumDirectories: Int = 45,
        outsideFiles: [TreePath] = []
    ) throws(SystemCallError) -> RandomTree {
        var builder = RandomTree(seed: seed, root: root, outsideFiles: outsideFiles)
        for _ in 0..<operationCount {
            try builder.step(tree, maximumDirectories: maximumDirectories)
        }
        return builder
    }

    private init(seed: UInt64, root: TreePath, outsideFiles: [TreePath]) {
        self.seed = seed
        generator = SeededGenerator(seed: seed)
        directories = [root]
        files = outsideFiles
        taken = Set([root])
    }

    private mutating func step(_ tree: TempTree, maximumDirectories: Int) throws(SystemCallError) {
        let parent = directories.randomElement(using: &generator)!
        let path = freshName(in: parent)
        let roll = Int.random(in: 0..<100, using: &generator)
        switch roll {
        case 0..<22 where directories.count < maximumDirectories:
            try tree.makeDirectory(path)
            directories.append(path)
            count("directory")
        case 0..<45:
            try tree.writeFile(path, byteCount: randomFileSize())
            files.append(path)
            count("regular file")
        case 45..<52:
            let size = Int.random(in: 1...12_000_000, using: &generator)
            let offsets = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                Int.random(in: 0..<size, using: &generator)
            }
            try tree.makeSparseFile(path, size: size, dataOffsets: offsets)
            files.append(path)
            count("sparse file")
        case 52..<58:
            try tree.makeFallocatedFile(path, size: Int.random(in: 1...300_000, using: &generator))
            files.append(path)
            count("fallocated file")
        case 58..<62:
            try tree.makeEmptyFile(path)
            files.append(path)
            count("empty file")
        case 62..<82 where !files.isEmpty:
            try tree.makeHardLink(path, to: files.randomElement(using: &generator)!)
            count("hard link")
        case 62..<94:
            try tree.makeSymlink(path, target: symlinkTarget())
            count("symlink")
        default:
            try tree.makeFIFO(path)
            count("fifo")
        }
        taken.insert(path)
    }

    private mutating func randomFileSize() -> Int {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return 0
        case 1..<4: return Int.random(in: 1...200, using: &generator)
        case 4..<6: return 4096 * Int.random(in: 1...8, using: &generator)
        case 6..<9: return Int.random(in: 200...70_000, using: &generator)
        default: return Int.random(in: 70_000...600_000, using: &generator)
        }
    }

    private mutating func symlinkTarget() -> [UInt8] {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:
            // Possibly a directory: a scan that follows it would count twice.
            return Array("..".utf8)
        case 1:
            return Array("/".utf8)
        case 2:
            return Array("no-such-target".utf8)
        default:
            return randomName()
        }
    }

    private mutating func freshName(in parent: TreePath) -> TreePath {
        while true {
            let candidate = parent.appending(randomName())
            if !taken.contains(candidate) { return candidate }
        }
    }

    private mutating func randomName() -> [UInt8] {
        let plain = Array("abcdefghijklmnopqrstuvwxyz0123456789_-".utf8)
        let odd: [[UInt8]] = [
            [0x80], [0xFF], [0xC3, 0xA9], [0xE2, 0x82], [0xF0, 0x9F, 0x93, 0x81], [0xED, 0xA0, 0x80],
            [0x0A], [0x5C], [0x20], [0x09], [0x22], [0x01], Array("\\x80".utf8),
        ]
        var name: [UInt8] = []
        for _ in 0..<Int.random(in: 1...12, using: &generator) {
            if Int.random(in: 0..<8, using: &generator) == 0 {
                name += odd.randomElement(using: &generator)!
            } else {
                name.append(plain.randomElement(using: &generator)!)
            }
        }
        return name
    }

    private mutating func count(_ kind: String) {
        summary[kind, default: 0] += 1
    }
}
