import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchView
import Synchronization

/// Follows the in-process engine for `watch ROOT`: every event's line into the feed, and,
/// while a screen shows them, a frame of the current directory every ``interval``.
///
/// A frame costs the engine one pass over the names directly in the directory shown (its
/// subdirectories and files, the largest ``maximumEntries`` kept in a bounded heap: O(n log k)
/// for its n names) plus the quota rows: what is on the screen, never the tree.
final class WatchObserver: EngineObserver {
    static let interval: UInt64 = 200_000_000
    /// Names beyond the largest this many are not sent (the list says how many more there are):
    /// enough for every entry of any directory a person pages through.
    static let maximumEntries = 20_000

    /// An idle engine's frame is made again at least this often (free space, quota states
    /// and degraded subtrees' polls change without inotify events being counted).
    static let idleInterval: UInt64 = 1_000_000_000

    let feed: WatchFeed
    /// ROOT as the event lines name it (``EngineOptions/rootDisplay``).
    let root: String
    let wantsFrames: Bool
    /// `--ios`: each frame carries the app's size as the phone shows it.
    let phone: PhoneStorageOptions.Measured?
    private let next = Atomic<UInt64>(0)
    /// What the last frame was made from; touched only on the engine thread.
    private let last = Mutex<(key: FrameKey, at: UInt64)?>(nil)

    /// Everything that changes a frame's tallies: equal keys mean equal rows.
    private struct FrameKey: Equatable {
        var directory: [UInt8]
        var events: UInt64
        var rescannedDirectories: UInt64
        var overflows: UInt64
    }

    init(feed: WatchFeed, root: String, wantsFrames: Bool, phone: PhoneStorageOptions.Measured? = nil) {
        self.feed = feed
        self.root = root
        self.wantsFrames = wantsFrames
        self.phone = phone
    }

    var nextTurn: UInt64? { wantsFrames ? next.load(ordering: .relaxed) : nil }

    func engine(_ change: EngineLifecycle, _ view: EngineView) {
        if change == .ready { engineTurn(view) }
    }

    func engineEmitted(_ event: ObservedEvent) { feed.append(event: event.jsonLine(root: root)) }

    func engineTurn(_ view: EngineView) {
        next.store(view.now + Self.interval, ordering: .relaxed)
        guard wantsFrames else { return }
        let directory = feed.directory
        let key = FrameKey(
            directory: directory, events: view.counters.events,
            rescannedDirectories: view.counters.rescannedDirectories, overflows: view.counters.overflows)
        let isUnchanged = last.withLock { last in
            guard let previous = last, previous.key == key, view.now - previous.at < Self.idleInterval else {
                last = (key, view.now)
                return false
            }
            return true
        }
        // Nothing happened since the last frame: the screen already shows this one.
        if isUnchanged { return }
        var frame = Self.frame(view, directory: directory)
        // The root's tally and one lookup of Library/Caches: O(its depth).
        frame.phone = phone?.storage(view.tree)
        feed.publish(frame)
    }

    /// The frame of `directory` (raw, relative to the root).
    static func frame(_ view: EngineView, directory: [UInt8]) -> WatchFrame {
        let tree = view.tree
        var frame = WatchFrame(root: view.rootDisplay, directory: directory)
        let total = tree.tally(of: tree.root)
        frame.rootAllocated = total.usage.allocated
        frame.rootApparent = total.usage.apparent
        frame.rootFiles = total.files
        frame.rootDirs = total.dirs
        let components = directory.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
        if let shown = tree.directory(atComponents: components) {
            frame.entries = tree.largestChildren(of: shown, limit: maximumEntries).map(entry)
            frame.omittedEntries = max(0, tree.childCount(of: shown) - frame.entries.count)
        } else {
            frame.directoryExists = false
        }
        if let status = view.quotas() { apply(status, to: &frame) }
        frame.events = view.counters.events
        frame.overflows = view.counters.overflows
        frame.degraded = view.counters.degraded.count
        frame.unreadable = view.counters.unreadable?.count ?? 0
        frame.isResyncing = view.isResyncing
        frame.seconds = Double(view.now) / 1e9
        return frame
    }

    /// A child of the directory shown as the view lists it.
    static func entry(_ child: TallyTree.Child) -> WatchFrame.Entry {
        WatchFrame.Entry(
            name: child.name, allocated: child.tally.allocated, apparent: child.tally.apparent,
            files: child.tally.files, dirs: child.tally.dirs, isDirectory: child.isDirectory)
    }

    /// The quota rows and the disk level, from the engine or from a daemon's reply.
    static func apply(_ status: QuotaStatus, to frame: inout WatchFrame) {
        frame.quotas = status.quotas
        frame.level = status.level.level
        frame.free = status.level.free
        frame.diskTotal = status.level.total
    }
}
