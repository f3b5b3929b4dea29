import QuotaWatchCore
import QuotaWatchEngine

extension RandomRun {
    /// Several operations back to back, no event delivered between them: the sequences that
    /// race a real daemon's crawls and watches (as RandomOperations+Races does for real).
    mutating func randomSequence(_ step: Int) -> [Action] {
        let inside = h.fs.paths(below: Self.root)
        let directories = [Self.root] + inside.filter { h.fs.isDirectory($0) }
        let subdirectories = Array(directories.dropFirst())
        let files = inside.filter { !h.fs.isDirectory($0) }
        let first = chance(50)
        let fresh = { (label: String) in Array("\(label)\(step)".utf8) }
        switch Int.random(in: 0..<9, using: &random) {
        case 0:
            // makedirs of a fresh chain, then a directory renamed over its empty leaf.
            guard let source = subdirectories.randomElement(using: &random) else { return [] }
            var leaf = directories.randomElement(using: &random)!
            var actions: [Action] = []
            for level in 0..<Int.random(in: 1...3, using: &random) {
                leaf = leaf.appending(fresh("n\(level)-"))
                actions.append(.mkdir(leaf))
            }
            return actions + [.rename(source, leaf, selfEventsFirst: first)]
        case 1:
            // A directory renamed over an empty one that has been there for a while.
            let empty = subdirectories.filter { h.fs.node(at: $0)?.entries.isEmpty == true }
            guard let source = subdirectories.randomElement(using: &random),
                let target = empty.randomElement(using: &random)
            else { return [] }
            return [.rename(source, target, selfEventsFirst: first)]
        case 2, 3:
            // Two files, or two directories, trade names through a third.
            let candidates = Int.random(in: 0..<2, using: &random) == 0 ? files : subdirectories
            guard let one = candidates.randomElement(using: &random),
                let other = candidates.randomElement(using: &random), one != other
            else { return [] }
            let temporary = one.parent.appending(fresh("swap"))
            return [
                .rename(one, temporary, selfEventsFirst: first), .rename(other, one, selfEventsFirst: first),
                .rename(temporary, other, selfEventsFirst: first),
            ]
        case 4:
            // mkdir, fill and rm -rf of one name, round after round; the last copy may stay.
            let path = directories.randomElement(using: &random)!.appending(fresh("churn"))
            var actions: [Action] = []
            for _ in 0..<Int.random(in: 2...5, using: &random) {
                actions += [
                    .mkdir(path), .create(path.appending([0x66]), size: size()), .mkdir(path.appending([0x73])),
                    .create(path.appending([0x73]).appending([0x67]), size: size()),
                    .removeTree(path, selfEventsFirst: first),
                ]
            }
            if chance(50) { actions.removeLast() }
            return actions
        case 5:
            // Hard links to files outside the root, then the directory holding them renamed.
            let outsideFiles = h.fs.paths(below: Self.outside).filter { !h.fs.isDirectory($0) }
            guard let holder = subdirectories.randomElement(using: &random), !outsideFiles.isEmpty else { return [] }
            var actions: [Action] = []
            for index in 0..<Int.random(in: 1...3, using: &random) {
                actions.append(
                    .link(outsideFiles.randomElement(using: &random)!, holder.appending(fresh("l\(index)-"))))
            }
            let target = directories.randomElement(using: &random)!.appending(fresh("held"))
            return actions + [.rename(holder, target, selfEventsFirst: first)]
        case 8:
            // renameat2(RENAME_EXCHANGE) of any two entries, files and directories alike, one
            // of them perhaps outside the root, sometimes followed by another rename.
            let outsidePaths = h.fs.paths(below: Self.outside)
            guard let one = inside.randomElement(using: &random),
                let other = (chance(80) ? inside : outsidePaths).randomElement(using: &random), one != other
            else { return [] }
            var actions: [Action] = [.exchange(one, other)]
            if chance(30) {
                let target = directories.randomElement(using: &random)!.appending(fresh("after"))
                actions.append(.rename(chance(50) ? one : other, target, selfEventsFirst: first))
            }
            return actions
        case 7:
            // Writes through the outside name of files that may have names inside: no event
            // reaches the root; a sync re-stats one name of every hard-linked inode.
            let outsideFiles = h.fs.paths(below: Self.outside).filter { !h.fs.isDirectory($0) }
            guard let file = outsideFiles.randomElement(using: &random) else { return [] }
            return [.write(file, size: size(), delayedAllocation: false)]
        default:
            // Out of the root and back in under another name, perhaps into a fresh chain or
            // over its empty leaf.
            guard let source = subdirectories.randomElement(using: &random) else { return [] }
            let away = Self.outside.appending(fresh("away"))
            var actions: [Action] = [.rename(source, away, selfEventsFirst: first)]
            if chance(50) { actions.append(.create(away.appending(fresh("w")), size: size())) }
            var parent = directories.randomElement(using: &random)!
            for level in 0..<Int.random(in: 0...2, using: &random) {
                parent = parent.appending(fresh("in\(level)-"))
                actions.append(.mkdir(parent))
            }
            let overLeaf = parent != Self.root && chance(50)
            let target = overLeaf ? parent : parent.appending(fresh("back"))
            return actions + [.rename(away, target, selfEventsFirst: first)]
        }
    }
}
