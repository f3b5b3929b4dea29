import QuotaWatchCore
import QuotaWatchPolicy

/// The leftover pass, after the monitor's turn: the files re-stat'ed in candidate directories
/// (and those found by placing a directory) are matched against the idle-file rules and timed
/// from their last write; at a deadline the file is stat'ed again, and only when it was not
/// written since and no process holds it open for writing does it become a `leftover`.
/// Staleness raises no event, so the deadline is the only trigger.
///
/// Generic over the file system, with the one question it asks outside the tree (is the file
/// open for writing?) passed in, so tests drive its timers with a fake file system and a
/// manual clock.
struct LeftoverPass<FileSystem: LiveFileSystem> {
    /// Whether some process holds the file open for writing; true when that cannot be told
    /// (a download is never reported on a guess).
    let isOpenForWriting: (FileStatus) -> Bool
    /// The wall clock (ns since the epoch), to turn an mtime into an engine moment.
    let wallClock: () -> Int64

    /// One pass at `now` (engine clock): the leftovers found due, as events.
    func run(
        _ monitor: inout PolicyMonitor, _ live: inout LiveTree<FileSystem>, changed: [LeftoverKey], now: UInt64
    ) -> [PolicyEvent] {
        guard !monitor.leftovers.isEmpty else { return [] }
        var seen = changed
        seen += monitor.leftovers.toExamine
        monitor.leftovers.toExamine.removeAll()
        for key in seen { examine(key, &monitor, &live, now: now) }
        var events: [PolicyEvent] = []
        let due = monitor.leftovers.schedule.due(at: PolicyMonitor.moment(now))
        for key in due {
            if let event = check(key, &monitor, &live, now: now) { events.append(event) }
        }
        if monitor.leftovers.directoriesChanged {
            live.fileLogDirectories = Set(monitor.leftovers.states.keys)
            monitor.leftovers.directoriesChanged = false
        }
        let next = monitor.leftovers.schedule.nextDeadline()
        monitor.leftoverDeadline = next.map { UInt64(clamping: $0.sinceOrigin.nanoseconds) }
        return events
    }

    /// A file was written, renamed in, found or removed: start, move or end its wait.
    private func examine(
        _ key: LeftoverKey, _ monitor: inout PolicyMonitor, _ live: inout LiveTree<FileSystem>, now: UInt64
    ) {
        guard live.tree.contains(key.directory), let match = monitor.leftovers.rule(for: key),
            case .found(let status) = live.fileSystem.status(of: key.name, in: key.directory, tree: live.tree),
            status.kind == .regular
        else {
            monitor.leftovers.schedule.removed(key)
            return
        }
        let written = moment(ofWallClock: status.modifiedNanoseconds, now: now)
        if let candidate = monitor.leftovers.schedule.candidates[key], candidate.rule == match.rule.name,
            written <= candidate.timer.lastWrite + .milliseconds(1)
        {
            return  // an attribute change or a second look: not a write, nothing moves
        }
        monitor.leftovers.schedule.written(
            key, path: Self.path(of: key, in: live.tree), rule: match.rule.name, age: match.age, at: written)
    }

    /// A candidate's deadline passed: report it if it still is one.
    private func check(
        _ key: LeftoverKey, _ monitor: inout PolicyMonitor, _ live: inout LiveTree<FileSystem>, now: UInt64
    ) -> PolicyEvent? {
        guard live.tree.contains(key.directory), let match = monitor.leftovers.rule(for: key),
            case .found(let status) = live.fileSystem.status(of: key.name, in: key.directory, tree: live.tree),
            status.kind == .regular, let candidate = monitor.leftovers.schedule.candidates[key]
        else {
            monitor.leftovers.schedule.removed(key)
            return nil
        }
        let written = moment(ofWallClock: status.modifiedNanoseconds, now: now)
        if written > candidate.timer.lastWrite + .milliseconds(1) {
            // Written since, with its event still on the way: wait from the new write.
            monitor.leftovers.schedule.written(
                key, path: candidate.path, rule: match.rule.name, age: match.age, at: written)
            return nil
        }
        guard
            let reported = monitor.leftovers.schedule.checked(
                key, at: PolicyMonitor.moment(now), openForWriting: isOpenForWriting(status))
        else { return nil }
        return PolicyEvent(
            .leftover(
                path: reported.path, allocated: status.allocatedBytes,
                idle: PolicyMonitor.moment(now) - reported.timer.lastWrite, rule: reported.rule),
            time: .now())
    }

    /// The engine's moment of a wall-clock time (a file's mtime), never after `now`.
    func moment(ofWallClock nanoseconds: Int64, now: UInt64) -> Moment {
        // An mtime at either end of the range (a file touched to 1600 or 2300) must not trap.
        let age = max(0, Saturating.difference(wallClock(), nanoseconds))
        let engineNanoseconds = Int64(clamping: now) - age
        return Moment(sinceOrigin: .nanoseconds(engineNanoseconds))
    }

    private static func path(of key: LeftoverKey, in tree: TallyTree) -> [UInt8] {
        var path = tree.relativePath(of: key.directory)
        if !path.isEmpty { path.append(UInt8(ascii: "/")) }
        return path + key.name
    }
}
