/// Timers whose deadlines arrive in order: each is appended with a constant delay from a
/// clock that never goes back, so the head is always the next one due. Popping moves an
/// index instead of shifting the array, and the storage is given back once drained (or
/// compacted once half of it is spent), so a storm's peak is not kept for good.
///
/// Superseded entries are not removed: their owner skips them when they come due.
struct OrderedTimerQueue<Element> {
    private var entries: [(deadline: UInt64, element: Element)] = []
    private var head = 0

    var nextDeadline: UInt64? { head < entries.count ? entries[head].deadline : nil }

    /// Entries not yet popped.
    var count: Int { entries.count - head }

    /// The elements not yet due, oldest first.
    var waiting: ArraySlice<(deadline: UInt64, element: Element)> { entries[head...] }

    mutating func append(_ element: Element, at deadline: UInt64) {
        entries.append((deadline, element))
    }

    /// The next entry due at `now`, if any; call until nil, then ``compact()``.
    mutating func popDue(now: UInt64) -> (deadline: UInt64, element: Element)? {
        guard head < entries.count, entries[head].deadline <= now else { return nil }
        head += 1
        return entries[head - 1]
    }

    /// Lets go of the spent entries' storage.
    mutating func compact() {
        if head == entries.count {
            entries = []
            head = 0
        } else if head > 1024 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    mutating func removeAll() {
        entries = []
        head = 0
    }

    /// Drops the waiting entries `isStale` picks, into storage sized for the rest; the order of
    /// the others is kept.
    mutating func removeAll(where isStale: ((deadline: UInt64, element: Element)) -> Bool) {
        var kept: [(deadline: UInt64, element: Element)] = []
        for entry in entries[head...] where !isStale(entry) { kept.append(entry) }
        entries = kept
        head = 0
    }
}
