import QuotaWatchCore
import QuotaWatchPolicy

/// The states that stand, as the events that announced them: what a hook added by a reload
/// is told, since it was not there to hear them.
extension PolicyMonitor {
    /// Every quota directory and rule in warning or breach, the disk level when it is not
    /// normal (as a change from normal), and every leftover reported and still there, as of
    /// `now`. Quotas and leftovers by path.
    func standingEvents(_ tree: TallyTree, now: UInt64, time: WallTime) -> [PolicyEvent] {
        let moment = Self.moment(now)
        var events: [PolicyEvent] = []
        if level.level != .normal, let reading = lastReading {
            events.append(
                PolicyEvent(
                    .level(
                        from: .normal, to: level.level, free: reading.free, total: reading.total,
                        rootAllocated: reading.rootAllocated), time: time))
        }
        for row in book.rows(level: level.level, at: moment) where row.state != .ok {
            guard let used = row.used else { continue }
            events.append(
                PolicyEvent(
                    .quota(
                        state: row.state, path: row.path, used: used, size: row.size, limit: row.limit,
                        effectiveLimit: row.effectiveLimit, rule: row.rule, level: level.level), time: time))
        }
        let reported = leftovers.schedule.candidates.filter { $0.value.timer.phase == .reported }
        for (key, candidate) in reported.sorted(by: { $0.value.path.lexicographicallyPrecedes($1.value.path) }) {
            guard tree.contains(key.directory), case .file(let file) = tree.entry(named: key.name, in: key.directory)
            else { continue }
            events.append(
                PolicyEvent(
                    .leftover(
                        path: candidate.path, allocated: tree.usage(of: file).allocated,
                        idle: moment - candidate.timer.lastWrite, rule: candidate.rule), time: time))
        }
        return events
    }
}
