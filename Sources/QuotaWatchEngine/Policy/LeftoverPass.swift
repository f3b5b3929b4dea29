import QuotaWatchCore
import QuotaWatchPolicy

/// The leftover pass, after the monitor's turn: the files re-stat'ed in candidate directories
/// (and those found by placing a directory) are matched against the idle-file rules and timed
/// from their last activity (the latest of mtime and ctime: ``FileActivity``); at a deadline
/// the file is stat'ed again, and only when it was not written since and no process holds it
/// open for writing does it become a `leftover`.
/// Staleness raises no event, so the deadline is the only trigger. A reported leftover that is
/// removed (by a cleaner or anyone), renamed away or written again is reported as
/// `leftover_gone`, which is what resolves its alert.
///
/// Generic over the file system, with the one question it asks outside the tree (is the file
/// open for writing?) passed in, so tests drive its timers with a fake file system and a
/// manual clock. Public for the leftover participant (QuotaWatchCleaning), which runs it.
package struct LeftoverPass<FileSystem: LiveFileSystem> {
    /// Whether some process holds the file open for writing; true when that cannot be told
    /// (a download is never reported on a guess).
    let isOpenForWriting: (FileStatus) -> Bool
    /// The wall clock (ns since the epoch), to turn an mtime into an engine moment.
    let wallClock: () -> Int64

    package init(isOpenForWriting: @escaping (FileStatus) -> Bool, wallClock: @escaping () -> Int64) {
        self.isOpenForWriting = isOpenForWriting
        self.wallClock = wallClock
    }

    /// One pass at `now` (engine clock): the leftovers found due, as events.
    package func run(
        _ monitor: inout PolicyMonitor, _ live: inout LiveTree<FileSystem>, changed: [StructureChanges.FileName],
        now: UInt64
    ) -> [PolicyEvent] {
        guard !monitor.leftovers.isEmpty else { return [] }
        var seen = changed
        seen += monitor.leftovers.toExamine
        monitor.leftovers.toExamine.removeAll()
        var events: [PolicyEvent] = []
        for key in seen {
            if let event = examine(key, &monitor, &live, now: now) { events.append(event) }
        }
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

    /// A file was written, renamed in, found or removed: start, move or end its wait. Returns
    /// the `leftover_gone` of a reported leftover that this ends.
    private func examine(
        _ key: LeftoverKey, _ monitor: inout PolicyMonitor, _ live: inout LiveTree<FileSystem>, now: UInt64
    ) -> PolicyEvent? {
        let found = Self.regularFile(key, &live)
        guard let match = monitor.leftovers.rule(for: key), case .found(let status) = found else {
            return Self.gone(monitor.leftovers.schedule.removed(key), found)
        }
        // The change the engine saw is in the ctime it has just read (a re-stat with no change
        // since, after writeback, moves nothing). Only times in the past count; a file whose
        // every time lies in the future is taken as active now.
        let written = lastActivity(of: status, now: now) ?? PolicyMonitor.moment(now)
        if let candidate = monitor.leftovers.schedule.candidates[key], candidate.rule == match.rule.name,
            written <= candidate.timer.lastWrite + .milliseconds(1)
        {
            return nil  // an attribute change or a second look: not a write, nothing moves
        }
        let ended = monitor.leftovers.schedule.written(
            key, path: Self.path(of: key, in: live.tree), rule: match.rule.name, age: match.age, at: written)
        return ended.map { Self.goneEvent($0, reason: $0.rule == match.rule.name ? .written : .unmatched) }
    }

    /// The `leftover_gone` (removed) of each reported leftover in a directory that left the tree.
    package static func leftoversOfRemovedDirectories(
        _ removed: [DirectoryID], _ monitor: inout PolicyMonitor
    )
        -> [PolicyEvent]
    {
        guard !removed.isEmpty else { return [] }
        return monitor.leftovers.dropCandidates(in: removed).map { goneEvent($0, reason: .removed) }
    }

    /// What is at `key` now: a regular file's status, `.notRegular` for anything else there,
    /// or `.missing` (its directory or its name is gone).
    private static func regularFile(_ key: LeftoverKey, _ live: inout LiveTree<FileSystem>) -> FoundFile {
        guard live.tree.contains(key.directory),
            case .found(let status) = live.fileSystem.status(of: key.name, in: key.directory, tree: live.tree)
        else { return .missing }
        return status.kind == .regular ? .found(status) : .notRegular
    }

    enum FoundFile {
        case found(FileStatus)
        case notRegular
        case missing
    }

    /// The `leftover_gone` of `ended`, the reported leftover that left the schedule: `removed`
    /// when nothing is at its name any more, `unmatched` when something still is.
    private static func gone(_ ended: LeftoverSchedule<LeftoverKey>.Candidate?, _ found: FoundFile) -> PolicyEvent? {
        guard let ended else { return nil }
        if case .missing = found { return goneEvent(ended, reason: .removed) }
        return goneEvent(ended, reason: .unmatched)
    }

    private static func goneEvent(_ ended: LeftoverSchedule<LeftoverKey>.Candidate, reason: LeftoverEnd) -> PolicyEvent
    {
        PolicyEvent(.leftoverGone(path: ended.path, rule: ended.rule, reason: reason), time: .now())
    }

    /// A candidate's deadline passed: report it if it still is one.
    private func check(
        _ key: LeftoverKey, _ monitor: inout PolicyMonitor, _ live: inout LiveTree<FileSystem>, now: UInt64
    ) -> PolicyEvent? {
        let found = Self.regularFile(key, &live)
        guard let match = monitor.leftovers.rule(for: key), case .found(let status) = found,
            let candidate = monitor.leftovers.schedule.candidates[key]
        else {
            return Self.gone(monitor.leftovers.schedule.removed(key), found)
        }
        // Times in the future say nothing: they neither move the wait nor keep the file forever.
        if let written = lastActivity(of: status, now: now), written > candidate.timer.lastWrite + .milliseconds(1) {
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

    /// The engine's moment of the file's last activity: the latest of its mtime and ctime that
    /// is not in the future (``FileActivity``), so a download whose mtime its writer sets back
    /// after every write (`curl -R`, `wget -N`, `rsync -t`) is still active; nil when both lie in
    /// the future.
    func lastActivity(of status: FileStatus, now: UInt64) -> Moment? {
        let wallNow = wallClock()
        guard
            let latest = FileActivity.latest(
                status.modifiedNanoseconds, status.changedNanoseconds, notAfter: wallNow)
        else { return nil }
        return Self.moment(ofWallClock: latest, wallNow: wallNow, now: now)
    }

    /// The engine's moment of a wall-clock time (a file's mtime), never after `now`, the
    /// engine's reading taken with `wallNow`.
    static func moment(ofWallClock nanoseconds: Int64, wallNow: Int64, now: UInt64) -> Moment {
        // An mtime at either end of the range (a file touched to 1600 or 2300) must not trap.
        let age = max(0, Saturating.difference(wallNow, nanoseconds))
        let engineNanoseconds = Int64(clamping: now) - age
        return Moment(sinceOrigin: .nanoseconds(engineNanoseconds))
    }

    private static func path(of key: LeftoverKey, in tree: TallyTree) -> [UInt8] {
        var path = tree.relativePath(of: key.directory)
        if !path.isEmpty { path.append(UInt8(ascii: "/")) }
        return path + key.name
    }
}
