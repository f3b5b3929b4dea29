import QuotaWatchCore
import QuotaWatchPolicy

/// A file the leftover rules look at: its directory in the tree and its name.
typealias LeftoverKey = StructureChanges.FileName

/// The `idle-file` leftover rules in the live engine (`CFNetworkDownload_*.tmp`, temporary
/// plists, and the user's own): which directories may hold a candidate, which files are
/// candidates, and their timers.
///
/// Directories are placed like quota directories, from their parent's ``RuleIndex/State``
/// and their name, and a directory whose state is live asks the engine to log the files it
/// re-stats there; a file's rule is its directory's state stepped once more by the file's
/// name. A candidate is never trusted from memory at its deadline: the engine stats the name
/// again, and a file that is gone, or was written since, is dropped or waits anew.
struct LeftoverWatch {
    /// The idle-file rules, with each one's age.
    let rules: [(rule: LeftoverRule, age: Duration)]
    let index: RuleIndex
    /// The rule of each glob of `index`.
    private let ruleOfGlob: [Int]
    /// Where each directory that may hold a candidate stands in `index`.
    private(set) var states: [DirectoryID: RuleIndex.State] = [:]
    var schedule = LeftoverSchedule<LeftoverKey>()
    /// Files found by placing a directory (at start, or when it arrives), to stat once.
    var toExamine: [LeftoverKey] = []
    /// Set when `states` gained or lost a directory, so the tree's file log follows.
    var directoriesChanged = false

    init(rules all: [LeftoverRule]) {
        var rules: [(LeftoverRule, Duration)] = []
        var globs: [PathGlob] = []
        var ruleOfGlob: [Int] = []
        for rule in all {
            guard case .idleFile(let age) = rule.kind else { continue }
            for glob in rule.paths {
                globs.append(glob)
                ruleOfGlob.append(rules.count)
            }
            rules.append((rule, age))
        }
        self.rules = rules
        self.ruleOfGlob = ruleOfGlob
        index = RuleIndex(globs)
    }

    var isEmpty: Bool { rules.isEmpty }

    /// Places `directory` (ROOT when `parentState` is nil and `isRoot`), returning whether it
    /// may hold candidates below it. Its files become candidates to examine when it may hold
    /// them itself.
    mutating func place(
        _ directory: DirectoryID, isRoot: Bool, parent: DirectoryID?, name: ArraySlice<UInt8>, tree: TallyTree
    ) -> Bool {
        guard !isEmpty else { return false }
        let placement: RuleIndex.Placement?
        if isRoot {
            placement = index.root
        } else if let parent, let parentState = states[parent], name.first != 0 {
            placement = index.child(of: parentState, named: name)
        } else {
            placement = nil
        }
        let had = states[directory] != nil
        if let placement, !placement.state.isDead {
            states[directory] = placement.state
            for file in tree.files(in: directory) {
                toExamine.append(LeftoverKey(directory: directory, name: Array(tree.name(of: file))))
            }
        } else {
            states.removeValue(forKey: directory)
        }
        if had != (states[directory] != nil) { directoriesChanged = true }
        return had || states[directory] != nil
    }

    mutating func forget(_ directory: DirectoryID) {
        if states.removeValue(forKey: directory) != nil { directoriesChanged = true }
    }

    /// Drops the candidates of directories that left the tree (a whole subtree removed: its
    /// files are never re-stat'ed one by one), returning those that had been reported. One
    /// pass over the candidates, only in a turn where directories went.
    mutating func dropCandidates(in removed: [DirectoryID]) -> [LeftoverSchedule<LeftoverKey>.Candidate] {
        guard !removed.isEmpty, !schedule.candidates.isEmpty else { return [] }
        let gone = Set(removed)
        return schedule.candidates.keys.filter { gone.contains($0.directory) }.compactMap { schedule.removed($0) }
            .sorted { $0.path.lexicographicallyPrecedes($1.path) }
    }

    mutating func removeAll() {
        states.removeAll()
        schedule.removeAll()
        toExamine.removeAll()
        directoriesChanged = true
    }

    /// The idle-file rule `key` falls under now, if any.
    func rule(for key: LeftoverKey) -> (rule: LeftoverRule, age: Duration)? {
        guard let state = states[key.directory] else { return nil }
        let matched = index.child(of: state, named: key.name).matched
        guard let glob = matched.first else { return nil }
        return rules[ruleOfGlob[glob]]
    }
}
