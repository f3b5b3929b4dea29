import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// `order: lru`: the last open the engine saw of each file in the directories an lru
/// eviction rule cleans. relatime makes atime useless, so those directories (and only those)
/// are watched for opens too (``LiveFileSystem/watchOpens(in:tree:)``: `IN_OPEN` added to the
/// inotify mask), and each open of a file is noted here,
/// keyed by the tree's file record with its inode (a reused record is told apart by it).
/// Open events never reach the tree: they change no size.
struct OpenLog: Sendable {
    /// The eviction globs asking for lru (nil: every quota directory).
    let globs: [PathGlob?]
    private var lastOpen: [FileID: (inode: UInt64, nanoseconds: Int64)] = [:]
    /// Directories already watched for opens, with the inode they had then.
    private var watched: [DirectoryID: UInt64] = [:]
    private var seenShape: (directories: Int, quotas: Int) = (-1, -1)
    /// A resync (after an overflow) builds a new tree with new ids and plain watches.
    private var seenOverflows: UInt64 = 0

    init(settings: CleanupSettings) {
        globs = settings.cleaners.compactMap { spec -> PathGlob?? in
            if case .evict(_, let glob, .leastRecentlyUsed, _) = spec { return .some(glob) }
            return nil
        }
    }

    var isActive: Bool { !globs.isEmpty }

    /// Adds `IN_OPEN` to the watch of every directory in an lru quota directory's subtree not
    /// watched for opens yet. Looked at only when the number of directories or of quota
    /// directories changed, so a quiet turn costs nothing. A directory created inside one
    /// later is watched from the next such turn.
    mutating func watch<FileSystem: LiveFileSystem>(_ live: inout LiveTree<FileSystem>, monitor: PolicyMonitor?) {
        guard isActive, let monitor else { return }
        if live.counters.overflows != seenOverflows {
            seenOverflows = live.counters.overflows
            lastOpen = [:]
        }
        if live.needsResync {
            // Watched afresh once the new tree is built.
            watched = [:]
            seenShape = (-1, -1)
            return
        }
        let shape = (live.tree.directoryCount, monitor.quotaDirectoryCount)
        guard shape != seenShape else { return }
        seenShape = shape
        var roots: Set<[UInt8]> = []
        for row in monitor.quotaRows(level: monitor.diskLevel, atNanoseconds: 0)
        where globs.contains(where: { $0?.matches(row.path) ?? true }) {
            roots.insert(row.path)
        }
        for path in roots {
            guard let top = live.tree.directory(atComponents: PathComponents.split(path)) else { continue }
            for directory in live.tree.subtree(of: top) where watched[directory] != live.tree.inode(of: directory) {
                guard live.tree.watch(of: directory) >= 0, live.fileSystem.watchOpens(in: directory, tree: live.tree)
                else { continue }
                watched[directory] = live.tree.inode(of: directory)
            }
        }
    }

    /// Notes the opens in `batch` and returns the other changes, in order.
    mutating func take<FileSystem: LiveFileSystem>(
        _ batch: [FileSystemChange], _ live: LiveTree<FileSystem>, now: Int64
    ) -> [FileSystemChange] {
        guard isActive, batch.contains(where: { $0.kind.contains(.opened) }) else { return batch }
        var rest: [FileSystemChange] = []
        rest.reserveCapacity(batch.count)
        for change in batch {
            guard change.kind.contains(.opened) else {
                rest.append(change)
                continue
            }
            guard !change.isDirectory, let directory = live.directory(forWatch: change.watch),
                case .file(let file)? = live.tree.entry(named: change.name, in: directory)
            else { continue }
            lastOpen[file] = (live.tree.inode(of: file), now)
        }
        // Records of files gone stay until the table outgrows the tree; then it starts afresh
        // (a lookup checks the inode, so a stale record never counts for another file).
        if lastOpen.count > 2 * max(live.tree.fileCount, 4096) { lastOpen = [:] }
        return rest
    }

    /// The last open of `file`, if the engine saw one of the inode it holds now.
    func lastOpen(of file: FileID, in tree: TallyTree) -> Int64? {
        guard let seen = lastOpen[file], seen.inode == tree.inode(of: file) else { return nil }
        return seen.nanoseconds
    }
}
