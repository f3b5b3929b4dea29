import QuotaWatchCore
import QuotaWatchPolicy

/// What a cleaner gets once the cleaners before it in the run have done their work.
///
/// A plan is built on the engine thread when its trigger comes, for every cleaner at once; the
/// cleaners then run one after another. Each one's context is settled here against everything
/// removed earlier in the run, so that no cleaner is offered a file already gone and none
/// works from a tally the cleaners before it made stale: a directory's use drops by what du
/// would drop for the names removed below it (an inode once all its names there went), which
/// is the tally the tree reaches when those removals' events arrive. A directory already at
/// or under its target is not offered at all: its breach is resolved, and a second cleaner
/// removing more for it would remove what no rule asks for.
extension CleanupPlan {
    /// `inputs` after `removed` (paths relative to ROOT; a directory stands for everything
    /// below it) went; nil when its directory needs nothing more.
    func settle(_ inputs: CleanupInputs, after removed: Set<[UInt8]>) -> CleanupInputs? {
        guard !removed.isEmpty else { return inputs }
        var settled = inputs
        settled.candidates = inputs.candidates.filter { !Self.isRemoved($0.path, removed) }
        guard var directory = inputs.directory else { return settled }
        let files = directoryFiles[directory.path] ?? inputs.candidates
        let dropped = Self.dropped(from: files, removed: removed)
        directory.used -= min(directory.used, directory.size == .allocated ? dropped.allocated : dropped.apparent)
        if var tally = directory.tally {
            tally.usage = Usage(
                allocated: tally.allocated - min(tally.allocated, dropped.allocated),
                apparent: tally.apparent - min(tally.apparent, dropped.apparent))
            tally.files -= min(tally.files, dropped.names)
            directory.tally = tally
        }
        settled.directory = directory
        // Planned above its target, and brought there by the cleaners before: done.
        if inputs.directory!.used > directory.target && directory.used <= directory.target { return nil }
        return settled
    }

    /// What the directory holding `files` (every file below it, its links grouped) loses when
    /// `removed` go: each inode's bytes once all its names there are gone, and every name.
    static func dropped(
        from files: [CleanupCandidate], removed: Set<[UInt8]>
    ) -> (allocated: UInt64, apparent: UInt64, names: UInt64) {
        var allocated: UInt64 = 0
        var apparent: UInt64 = 0
        var names: UInt64 = 0
        var counted: Set<[UInt64]> = []
        for file in files where isRemoved(file.path, removed) {
            names += 1
            guard file.namesInDirectory.allSatisfy({ isRemoved($0, removed) }),
                counted.insert([file.device, file.inode]).inserted
            else { continue }
            allocated = Saturating.sum(allocated, file.allocatedBytes)
            apparent = Saturating.sum(apparent, file.apparentBytes)
        }
        return (allocated, apparent, names)
    }

    /// Whether `path` or a directory above it is in `removed`. O(depth) lookups.
    static func isRemoved(_ path: [UInt8], _ removed: Set<[UInt8]>) -> Bool {
        if removed.contains(path) { return true }
        var end = path.count
        while let slash = path[..<end].lastIndex(of: UInt8(ascii: "/")) {
            if removed.contains(Array(path[..<slash])) { return true }
            end = slash
        }
        return false
    }
}
