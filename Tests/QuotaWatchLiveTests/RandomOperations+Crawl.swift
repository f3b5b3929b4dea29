import QuotaWatchTestSupport

/// Operations made while the daemon's first crawl is under way (RandomizedLiveTests with
/// QUOTAWATCH_TEST_MOVES_DURING_CRAWL=1): mostly directory moves, renames over and
/// watchman's atomic replacement of a directory, on the model's directories and on a bulk of
/// subtrees made for the crawl to spend its time on, some of them listed already and some
/// not yet. The bulk is not in the model (du is run per model directory at the end); every
/// directory, the bulk's too, is compared with a scan.
extension RandomOperations {
    /// Makes `count` subtrees `bulk-N` below the root, each `fanout` wide and three levels
    /// deep with one small file per directory; returns their paths.
    mutating func makeBulk(subtrees count: Int, fanout: Int = 4) throws -> [TreePath] {
        var made: [TreePath] = []
        for index in 0..<count {
            let top = root / "bulk-\(index)"
            for first in 0..<fanout {
                for second in 0..<fanout {
                    for third in 0..<fanout {
                        try tree.makeDirectories(top / "\(first)" / "\(second)" / "\(third)")
                        try tree.writeFile(top / "\(first)" / "\(second)" / "\(third)" / "f", byteCount: 1_000)
                    }
                    try tree.writeFile(top / "\(first)" / "\(second)" / "f", byteCount: 2_000)
                }
                try tree.writeFile(top / "\(first)" / "f", byteCount: 3_000)
            }
            made.append(top)
        }
        return made
    }

    /// One operation of the kinds that race a crawl; `bulk` holds the bulk subtrees' tops as
    /// they are now (a bulk subtree moved into another leaves the list).
    mutating func crawlRaceStep(bulk: inout [TreePath]) throws {
        let room = directories.count < maximumDirectories
        switch random(0..<100) {
        case 0..<15: try renameDirectory()
        case 15..<30: try replaceDirectoryAtomically()
        case 30..<38 where room: try renameOverFreshLeaf()
        case 38..<46: try renameOverEmptyDirectory()
        case 46..<54: try swapDirectories()
        case 54..<60: try moveOutAndBack()
        case 60..<66 where room: try makeChain()
        case 66..<70: try removeSubtree()
        case 70..<85: try moveBulkSubtree(&bulk)
        case 85..<100: try replaceBulkSubtree(&bulk)
        default: try createFile()
        }
    }

    /// watchman's `test_atomicMove`: a replacement is built beside a directory, the directory
    /// is renamed away and the replacement renamed to its name.
    mutating func replaceDirectoryAtomically() throws {
        guard directories.count > 1, directories.count + 2 < maximumDirectories else { return try createFile() }
        let target = directories[random(1..<directories.count)]
        guard let parent = target.parent else { return try createFile() }
        let replacement = freshName(in: parent)
        try tree.makeDirectories(replacement / "sub")
        try tree.writeFile(replacement / "a", byteCount: randomSize())
        try tree.writeFile(replacement / "sub" / "b", byteCount: randomSize())
        try tree.writeBack(replacement / "a")
        try tree.writeBack(replacement / "sub" / "b")
        let away = freshName(in: parent)
        try tree.rename(target, to: away)
        relocate(target, to: away)
        try tree.rename(replacement, to: target)
        directories += [target, target / "sub"]
        files += [target / "a", target / "sub" / "b"]
        note("replace directory", target, "the old one now \(away.reportPath)")
    }

    /// A bulk subtree, listed or not yet, moves into another one.
    mutating func moveBulkSubtree(_ bulk: inout [TreePath]) throws {
        guard bulk.count > 1 else { return try replaceDirectoryAtomically() }
        let moving = random(0..<bulk.count)
        let into = pick(bulk.indices.filter { $0 != moving })
        let target = bulk[into] / "moved-\(serial)"
        serial += 1
        try tree.rename(bulk[moving], to: target)
        note("move bulk", bulk[moving], "into \(target.reportPath)")
        bulk.remove(at: moving)
    }

    /// watchman's atomic move on a bulk subtree the crawl may be inside: renamed away, and a
    /// small directory renamed to its name.
    mutating func replaceBulkSubtree(_ bulk: inout [TreePath]) throws {
        guard !bulk.isEmpty else { return try replaceDirectoryAtomically() }
        let index = random(0..<bulk.count)
        let target = bulk[index]
        let away = root / "bulk-away-\(serial)"
        let replacement = root / "bulk-new-\(serial)"
        serial += 1
        try tree.makeDirectories(replacement / "x")
        try tree.writeFile(replacement / "x" / "f", byteCount: randomSize())
        try tree.writeBack(replacement / "x" / "f")
        try tree.rename(target, to: away)
        try tree.rename(replacement, to: target)
        bulk.append(away)
        note("replace bulk", target, "the old one now \(away.reportPath)")
    }
}
