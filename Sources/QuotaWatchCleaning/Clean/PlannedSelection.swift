import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// A `clean_delete` selection as the engine thread hands it over: the storage page's files as
/// the live tree has them (names, inodes, sizes: no syscall), and what was asked. The heavy
/// part, reading each file's mtime and sorting what the selection chooses, runs where
/// ``chosen`` is first read: on the cleanup runner, so that a selection of 60 000 files does
/// not hold the engine (it took 0.6 s of the engine thread in a release build).
final class PlannedSelection: Sendable {
    private let items: [CleanItem]
    private let selection: CleanSelection
    private let nowNanoseconds: Int64
    /// ROOT's descriptor: each item is statted relative to it.
    private let root: FileDescriptor
    private let result = Mutex<(items: [CleanItem], named: [NamedPath])?>(nil)

    init(items: [CleanItem], selection: CleanSelection, nowNanoseconds: Int64, root: FileDescriptor) {
        self.items = items
        self.selection = selection
        self.nowNanoseconds = nowNanoseconds
        self.root = root
    }

    /// The page's files the selection deletes, in listing order: computed once, by whoever
    /// asks first (with ``named``).
    var chosen: [CleanItem] { planned.items }

    /// The paths the selection names, removed whole after ``chosen``: each as it leads now (one
    /// that leads nowhere is left out, and the report has nothing for it).
    var named: [NamedPath] { planned.named }

    private var planned: (items: [CleanItem], named: [NamedPath]) {
        result.withLock { result in
            if let result { return result }
            let planned = plan()
            result = planned
            return planned
        }
    }

    private func plan() -> (items: [CleanItem], named: [NamedPath]) {
        var named: [NamedPath] = []
        if NamedPaths.removedWhole(selection) {
            for path in selection.paths {
                if case .success(let found) = NamedPaths.resolve([path], root: root) { named += found }
            }
        }
        var current: [CleanItem] = []
        current.reserveCapacity(items.count)
        for item in items {
            // The file's numbers now; a name that leads to another inode, a directory or
            // nothing any more is left out (the deleter would refuse it).
            guard let fresh = item.restatted(relativeTo: root) else { continue }
            current.append(fresh)
        }
        // Open writers are the deleter's to check, file by file, when it gets there.
        let offered = ManualCleanPlanner.offer(current) { _ in false }.offered
        let items = ManualCleanPlanner.select(offered, selection, nowNanoseconds: nowNanoseconds)
        return NamedPaths.split(chosen: items, named: named, page: current)
    }
}
