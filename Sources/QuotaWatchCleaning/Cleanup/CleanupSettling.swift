import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// Quota directories a cleanup run is bringing down after their breach. The policy holds their
/// states (``QuotaBook/hold(_:)``) from the breach until the run is over *and* the engine has
/// applied every deletion the run reported, then evaluates each once: alerting sees breach → ok
/// (or breach → warning when the run could not free enough), never the warning band the tally
/// walks through as files go one by one.
///
/// A run's end arrives through the mailbox while its deletions' inotify events may still be
/// queued, so the end alone is not enough: a directory settles when every name the run
/// removed below it has left the tree (or holds another inode now: a name made again at
/// once), or at `grace` after the end. The grace is a last resort for a name whose inode a
/// cleaner did not report and that was made again; it is long, because a heavily loaded
/// machine can hold the deletions' events back for seconds, and settling before them would
/// announce the `quota_warning` the tally walks through on its way to `quota_ok`.
struct CleanupSettling: Sendable {
    static let grace: Duration = .seconds(30)

    struct Pending {
        var removed: [RemovedItem] = []
        /// Set when the run ended: the latest moment (engine clock) to settle.
        var deadline: UInt64?
    }

    private var pending: [[UInt8]: Pending] = [:]

    var isEmpty: Bool { pending.isEmpty }

    /// The quota directories held now.
    var paths: Dictionary<[UInt8], Pending>.Keys { pending.keys }

    /// A run for the breach of the quota directory at `path` was submitted.
    mutating func started(_ path: [UInt8]) { pending[path] = Pending() }

    /// A run ended: every directory it served waits for the deletions it reported.
    mutating func finished(_ summary: CleanupSummary, now: UInt64) {
        let removed = summary.cleaners.flatMap(\.removed)
        for case .breach(let path) in summary.triggers where pending[path] != nil {
            let prefix = path + [UInt8(ascii: "/")]
            pending[path]!.removed = removed.filter { $0.path.starts(with: prefix) }
            pending[path]!.deadline = now + Self.grace.nanoseconds
        }
    }

    /// The earliest grace deadline, for the engine's wake-up.
    var nextDeadline: UInt64? { pending.values.compactMap(\.deadline).min() }

    /// Takes the directories that settled: their run ended, and its deletions are in `tree`.
    mutating func takeSettled(_ tree: TallyTree, now: UInt64) -> [[UInt8]] {
        var settled: [[UInt8]] = []
        for (path, entry) in pending {
            guard let deadline = entry.deadline else { continue }
            if now >= deadline || entry.removed.allSatisfy({ Self.hasLeft($0, tree) }) {
                settled.append(path)
            }
        }
        for path in settled { pending.removeValue(forKey: path) }
        return settled
    }

    /// Whether the removed name has left `tree`: nothing is at its path, or (when its inode is
    /// known) another inode is.
    static func hasLeft(_ item: RemovedItem, _ tree: TallyTree) -> Bool {
        let components = PathComponents.split(item.path)
        guard let name = components.last, let parent = tree.directory(atComponents: Array(components.dropLast()))
        else { return true }
        switch tree.entry(named: name, in: parent) {
        case nil: return true
        case .file(let file)?: return item.inode.map { tree.inode(of: file) != $0 } ?? false
        case .directory(let directory)?: return item.inode.map { tree.inode(of: directory) != $0 } ?? false
        }
    }

    /// The directory at `path`, if the tree has it.
    static func directory(_ path: [UInt8], in tree: TallyTree) -> DirectoryID? {
        tree.directory(atComponents: PathComponents.split(path))
    }
}
