import QuotaWatchCore
import QuotaWatchPolicy

/// Cleanup candidates from the live tree, on the engine thread. Each name is stat'ed relative
/// to its directory's descriptor (``LiveFileSystem/status(of:in:tree:)``), so no path is
/// resolved through a symlink; the cost is one stat per name looked at. These are what the
/// cleaning module (QuotaWatchCleaning) reads of the tree, so the package-visible ones are its surface.
extension LiveTree {
    /// Every non-directory name below `directory`, its hard links inside grouped
    /// (``CleanupCandidate/namesInDirectory``). O(names in the subtree).
    package mutating func cleanupFiles(
        below directory: DirectoryID, rule: String, lastOpen: (FileID) -> Int64? = { _ in nil }
    ) -> [CleanupCandidate] {
        var candidates: [CleanupCandidate] = []
        for subdirectory in tree.subtree(of: directory) {
            let base = tree.relativePath(of: subdirectory)
            for file in tree.files(in: subdirectory) {
                let name = Array(tree.name(of: file))
                if let candidate = candidate(
                    named: name, in: subdirectory, path: Self.join(base, name), rule: rule, lastOpen: lastOpen(file))
                {
                    candidates.append(candidate)
                }
            }
        }
        return Self.groupingLinks(candidates)
    }

    /// The names (files, and directories when `directories` is set) matching `glob` inside
    /// `start`'s subtree, walking only where the glob can still match. With `filesBelowMatches`
    /// a matching directory stands for the files below it instead.
    package mutating func cleanupEntries(
        matching glob: PathGlob, within start: DirectoryID, rule: String, directories: Bool,
        filesBelowMatches: Bool = false
    ) -> [CleanupCandidate] {
        var state = glob.rootState
        for component in tree.components(of: start) { state = glob.step(state, name: component) }
        if glob.isMatch(state) {
            if filesBelowMatches { return cleanupFiles(below: start, rule: rule) }
            if directories, start != tree.root, let own = directoryCandidate(start, rule: rule) { return [own] }
        }
        var found: [CleanupCandidate] = []
        var stack = [(start, state)]
        while let (directory, state) = stack.popLast() {
            let base = tree.relativePath(of: directory)
            for file in tree.files(in: directory) {
                let name = Array(tree.name(of: file))
                guard glob.isMatch(glob.step(state, name: name)) else { continue }
                if let candidate = candidate(named: name, in: directory, path: Self.join(base, name), rule: rule) {
                    found.append(candidate)
                }
            }
            for child in tree.subdirectories(of: directory) {
                let childState = glob.step(state, name: tree.name(of: child))
                if glob.isMatch(childState) {
                    if filesBelowMatches {
                        found += cleanupFiles(below: child, rule: rule)
                        continue
                    }
                    if directories, let own = directoryCandidate(child, rule: rule) { found.append(own) }
                }
                if !childState.isDead { stack.append((child, childState)) }
            }
        }
        return filesBelowMatches ? Self.groupingLinks(found) : found
    }

    /// The directories matching `glob` (ROOT excluded), walking only where it can still match.
    package func directories(matching glob: PathGlob) -> [DirectoryID] {
        var found: [DirectoryID] = []
        var stack = [(tree.root, glob.rootState)]
        while let (directory, state) = stack.popLast() {
            for child in tree.subdirectories(of: directory) {
                let childState = glob.step(state, name: tree.name(of: child))
                if glob.isMatch(childState) { found.append(child) }
                if !childState.isDead { stack.append((child, childState)) }
            }
        }
        return found
    }

    /// The name at `path` (a file, or a directory as a whole), if the tree has it.
    package mutating func cleanupEntry(at path: [UInt8], rule: String) -> CleanupCandidate? {
        let components = PathComponents.split(path)
        guard let last = components.last, let parent = tree.directory(atComponents: Array(components.dropLast()))
        else { return nil }
        switch tree.entry(named: last, in: parent) {
        case .directory(let directory)?: return directoryCandidate(directory, rule: rule)
        case .file?: return candidate(named: Array(last), in: parent, path: path, rule: rule)
        case nil: return nil
        }
    }

    /// A directory as a whole-subtree candidate: its tally's sizes, its own mtime.
    mutating func directoryCandidate(_ directory: DirectoryID, rule: String) -> CleanupCandidate? {
        guard case .found(let status) = fileSystem.status(of: directory, tree: tree) else { return nil }
        let tally = tree.tally(of: directory)
        return CleanupCandidate(
            path: tree.relativePath(of: directory), device: status.device, inode: status.inode, isDirectory: true,
            allocatedBytes: tally.allocated, apparentBytes: tally.apparent,
            modifiedNanoseconds: status.modifiedNanoseconds, changedNanoseconds: status.changedNanoseconds,
            accessedNanoseconds: status.accessedNanoseconds, linkCount: status.linkCount, rule: rule)
    }

    private mutating func candidate(
        named name: [UInt8], in directory: DirectoryID, path: [UInt8], rule: String, lastOpen: Int64? = nil
    ) -> CleanupCandidate? {
        guard case .found(let status) = fileSystem.status(of: name, in: directory, tree: tree),
            status.kind != .directory
        else { return nil }
        return CleanupCandidate(
            path: path, device: status.device, inode: status.inode, allocatedBytes: status.allocatedBytes,
            apparentBytes: status.apparentBytes, modifiedNanoseconds: status.modifiedNanoseconds,
            changedNanoseconds: status.changedNanoseconds, accessedNanoseconds: status.accessedNanoseconds,
            lastOpenNanoseconds: lastOpen, linkCount: status.linkCount, rule: rule)
    }

    static func join(_ base: [UInt8], _ name: [UInt8]) -> [UInt8] {
        base.isEmpty ? name : base + [UInt8(ascii: "/")] + name
    }

    /// Each name of a hard-linked inode learns its other names in the list.
    static func groupingLinks(_ candidates: [CleanupCandidate]) -> [CleanupCandidate] {
        var names: [[UInt64]: [[UInt8]]] = [:]
        for candidate in candidates where candidate.linkCount > 1 {
            names[[candidate.device, candidate.inode], default: []].append(candidate.path)
        }
        guard !names.isEmpty else { return candidates }
        return candidates.map { candidate in
            guard candidate.linkCount > 1, let all = names[[candidate.device, candidate.inode]] else {
                return candidate
            }
            var grouped = candidate
            grouped.namesInDirectory = all
            return grouped
        }
    }
}
