/// One file to create.
struct FileSpec: Sendable, Equatable {
    /// Sparse heads are cut to whole filesystem blocks, so the hole is real.
    static let blockSize = 4096

    var name: String
    /// `st_size` once created.
    var apparentSize: Int
    /// Bytes actually written from offset 0. Anything past it, up to `apparentSize`, is a hole.
    var writtenSize: Int
}

/// Many generated files that share a recipe.
struct FileBatch: Sendable {
    var count: Int
    var recipe: FileRecipe
    var seed: UInt64
}

/// One directory of the tree and what goes in it.
struct DirectoryPlan: Sendable {
    /// Relative to the destination; empty for the destination itself.
    var relativePath: String
    var fixedFiles: [FileSpec] = []
    var batches: [FileBatch] = []

    var fileCount: Int {
        fixedFiles.count + batches.reduce(0) { $0 + $1.count }
    }

    /// Calls `body` with every file of this directory, in a fixed order.
    func forEachFile<E: Error>(_ body: (FileSpec) throws(E) -> Void) throws(E) {
        for spec in fixedFiles {
            try body(spec)
        }
        for batch in batches {
            try batch.recipe.forEachFile(count: batch.count, seed: batch.seed, body)
        }
    }
}

/// A whole tree: directories with parents before children, the destination first.
///
/// A plan is pure data, cheap even for a million files: files are described per directory by
/// a recipe and a seed, and drawn only when written. Each directory has its own seed, so the
/// directories can be filled in any order, or in parallel, and still come out the same.
struct TreePlan: Sendable {
    private(set) var directories: [DirectoryPlan] = [DirectoryPlan(relativePath: "")]
    private var indexByPath: [String: Int] = ["": 0]
    private let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
    }

    var fileCount: Int {
        directories.reduce(0) { $0 + $1.fileCount }
    }

    /// The index of the directory at `path`, adding it and any missing parents.
    @discardableResult
    mutating func directory(_ path: String) -> Int {
        if let index = indexByPath[path] {
            return index
        }
        if let slash = path.lastIndex(of: "/") {
            directory(String(path[..<slash]))
        }
        directories.append(DirectoryPlan(relativePath: path))
        indexByPath[path] = directories.count - 1
        return directories.count - 1
    }

    mutating func addFiles(_ count: Int, _ recipe: FileRecipe, in path: String) {
        guard count > 0 else {
            directory(path)
            return
        }
        let index = directory(path)
        let stream = UInt64(index) << 8 | UInt64(directories[index].batches.count)
        let batchSeed = SplitMix64.derive(seed, stream: stream)
        directories[index].batches.append(FileBatch(count: count, recipe: recipe, seed: batchSeed))
    }

    mutating func addFixedFile(_ spec: FileSpec, in path: String) {
        directories[directory(path)].fixedFiles.append(spec)
    }
}

/// Splits `total` into `parts` whole shares in proportion to `weights` (largest remainder).
func apportion(_ total: Int, weights: [Double]) -> [Int] {
    let sum = weights.reduce(0, +)
    guard total > 0, sum > 0 else {
        return weights.map { _ in 0 }
    }
    let exact = weights.map { Double(total) * $0 / sum }
    var shares = exact.map { Int($0) }
    let order = exact.indices.sorted { lhs, rhs in
        let lhsRemainder = exact[lhs] - Double(shares[lhs])
        let rhsRemainder = exact[rhs] - Double(shares[rhs])
        return lhsRemainder != rhsRemainder ? lhsRemainder > rhsRemainder : lhs < rhs
    }
    for index in order.prefix(total - shares.reduce(0, +)) {
        shares[index] += 1
    }
    return shares
}
