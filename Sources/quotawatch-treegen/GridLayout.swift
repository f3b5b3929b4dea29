/// `directoryCount` leaf directories of `filesPerDirectory` small files each, nested two
/// levels (100 leaves per group) so that no directory is huge: `g000/d00/f0`.
enum GridLayout {
    static let defaultDirectoryCount = 20_000
    static let defaultFilesPerDirectory = 10
    static let leavesPerGroup = 100

    static let recipeSizes = SizeProfile([(1, 64, 4 * .kibibyte)])

    static func plan(directoryCount: Int, filesPerDirectory: Int, seed: UInt64) -> TreePlan {
        var plan = TreePlan(seed: seed)
        let groupCount = (directoryCount - 1) / leavesPerGroup + 1
        let groupWidth = max(3, String(groupCount - 1).count)
        let leafWidth = String(leavesPerGroup - 1).count
        let fileWidth = String(max(0, filesPerDirectory - 1)).count
        let recipe = FileRecipe(
            naming: .numbered(prefix: "f", width: fileWidth, suffix: "", randomStart: false),
            sizes: recipeSizes
        )
        for leaf in 0..<directoryCount {
            let group = "g" + Digits.padded(leaf / leavesPerGroup, width: groupWidth)
            let path = group + "/d" + Digits.padded(leaf % leavesPerGroup, width: leafWidth)
            plan.addFiles(filesPerDirectory, recipe, in: path)
        }
        return plan
    }
}

/// `fileCount` small files, 1000 to a directory, all directories side by side: `d0000/f000`.
enum FlatLayout {
    static let defaultFileCount = 1_000_000
    static let filesPerDirectory = 1000

    static func plan(fileCount: Int, seed: UInt64) -> TreePlan {
        var plan = TreePlan(seed: seed)
        let directoryCount = (fileCount - 1) / filesPerDirectory + 1
        let width = max(4, String(directoryCount - 1).count)
        let recipe = FileRecipe(
            naming: .numbered(prefix: "f", width: String(filesPerDirectory - 1).count, suffix: "", randomStart: false),
            sizes: SizeProfile([(0.02, 0, 0), (0.98, 32, 2 * .kibibyte)])
        )
        var remaining = fileCount
        for directory in 0..<directoryCount {
            let count = min(remaining, filesPerDirectory)
            plan.addFiles(count, recipe, in: "d" + Digits.padded(directory, width: width))
            remaining -= count
        }
        return plan
    }
}
