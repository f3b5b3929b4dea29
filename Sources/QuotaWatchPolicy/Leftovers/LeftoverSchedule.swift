import QuotaWatchCore

/// Every `idle-file` candidate the engine has seen, with its timer: the bookkeeping behind
/// `leftover` events. `Key` names a file in the engine (its directory and name).
///
/// Staleness makes no event, so each candidate waits in a heap ordered by deadline (its
/// last write + its rule's age); the engine wakes at ``nextDeadline``, asks the kernel once
/// per due file whether a process holds it open for writing, and feeds the answer back.
/// A file written again, renamed or removed leaves the schedule or starts a new wait.
package struct LeftoverSchedule<Key: Hashable & Sendable>: Sendable {
    package struct Candidate: Sendable, Hashable {
        /// Relative to ROOT, for events and listings.
        package var path: [UInt8]
        package var rule: String
        package var timer: LeftoverTimer
    }

    package private(set) var candidates: [Key: Candidate] = [:]
    private var deadlines = DeadlineHeap<Moment, Key>()

    package init() {}

    /// The file at `key` matched `rule` and was written (or first seen) at `moment`, which
    /// should be its modification time. Returns the leftover it had been reported as (its path
    /// and rule then), which it stops being: a `leftover_gone` to report.
    @discardableResult
    package mutating func written(
        _ key: Key, path: [UInt8], rule: String, age: Duration, at moment: Moment
    ) -> Candidate? {
        if var candidate = candidates[key], candidate.rule == rule {
            let before = candidate
            let wasLeftover = candidate.timer.written(at: moment)
            candidate.path = path
            candidates[key] = candidate
            if let deadline = candidate.timer.deadline { deadlines.push(deadline, key) }
            dropStaleDeadlinesIfMany()
            return wasLeftover ? before : nil
        }
        // Another rule now (a reload): the old rule's leftover, if reported, has ended.
        let ended = candidates[key].flatMap { $0.timer.phase == .reported ? $0 : nil }
        let timer = LeftoverTimer(age: age, lastWrite: moment)
        candidates[key] = Candidate(path: path, rule: rule, timer: timer)
        if let deadline = timer.deadline { deadlines.push(deadline, key) }
        return ended
    }

    /// The file is gone, renamed, or no longer matches any rule. Returns the leftover it had
    /// been reported as, if it had: a `leftover_gone` to report.
    @discardableResult
    package mutating func removed(_ key: Key) -> Candidate? {
        let candidate = candidates.removeValue(forKey: key)
        dropStaleDeadlinesIfMany()
        return candidate.flatMap { $0.timer.phase == .reported ? $0 : nil }
    }

    /// Deadlines in the heap, superseded ones included: what the memory bound is about.
    package var heldDeadlines: Int { deadlines.count }

    /// Forgets everything, as after a resync or a reload (the engine then sees every file
    /// again through its placement).
    package mutating func removeAll() {
        candidates.removeAll()
        deadlines.removeAll()
    }

    /// When the engine should next look, if anything waits.
    package mutating func nextDeadline() -> Moment? {
        dropSuperseded()
        return deadlines.first?.deadline
    }

    /// The candidates whose deadline has passed: the engine checks each for open writers and
    /// calls ``checked(_:at:openForWriting:)``.
    package mutating func due(at now: Moment) -> [Key] {
        var keys: [Key] = []
        var seen: Set<Key> = []
        while let head = deadlines.first, head.deadline <= now {
            _ = deadlines.popFirst()
            guard let candidate = candidates[head.key], candidate.timer.deadline == head.deadline,
                seen.insert(head.key).inserted
            else { continue }
            if case .checkOpenWriters = candidate.timer.decide(at: now) { keys.append(head.key) }
        }
        return keys
    }

    /// Feeds the open-writer check made at `now`. Returns the leftover to report when the
    /// file has just become one; a file held open waits one more age.
    package mutating func checked(_ key: Key, at now: Moment, openForWriting: Bool) -> Candidate? {
        guard var candidate = candidates[key] else { return nil }
        let idle = candidate.timer.checked(at: now, openForWriting: openForWriting)
        candidates[key] = candidate
        if let deadline = candidate.timer.deadline { deadlines.push(deadline, key) }
        dropStaleDeadlinesIfMany()
        return idle == nil ? nil : candidate
    }

    /// The candidates reported as leftovers and not written since, by path.
    package var leftovers: [Candidate] {
        candidates.values.filter { $0.timer.phase == .reported }.sorted { $0.path.lexicographicallyPrecedes($1.path) }
    }

    /// A removed or rewritten file leaves its old deadline in the heap, skipped when it comes
    /// due, which may be an age away: a cache that makes and deletes a file a second would
    /// hold an hour of them. Once they outnumber the live ones the heap is rebuilt without
    /// them (each live key once), so it stays within twice the candidates, at amortised O(1).
    private mutating func dropStaleDeadlinesIfMany() {
        guard deadlines.count > 2 * candidates.count + 1024 else { return }
        var kept: Set<Key> = []
        deadlines.filter { entry in
            candidates[entry.key]?.timer.deadline == entry.deadline && kept.insert(entry.key).inserted
        }
        if candidates.isEmpty && candidates.capacity > 1024 { candidates = [:] }
    }

    private mutating func dropSuperseded() {
        while let head = deadlines.first {
            if let candidate = candidates[head.key], candidate.timer.deadline == head.deadline { return }
            _ = deadlines.popFirst()
        }
    }
}
