/// A min-heap of keys by deadline, the soonest first: O(log n) to push or pop. The engine's
/// timed policy work (`DeadlineQueue`) and the leftover schedule both keep their deadlines in
/// it.
///
/// Entries are never removed from the middle ("lazy deletion"): a superseded deadline stays
/// in the heap and its owner skips it when it surfaces (it checks the key's current
/// deadline), which keeps rescheduling O(log n) instead of a search. ``filter(_:)`` drops
/// superseded entries in one O(n) pass when they pile up.
package struct DeadlineHeap<Deadline: Comparable, Key> {
    @usableFromInline var entries: [(deadline: Deadline, key: Key)] = []

    @inlinable package init() {}

    @inlinable package var isEmpty: Bool { entries.isEmpty }
    @inlinable package var count: Int { entries.count }
    /// The soonest entry, superseded or not.
    @inlinable package var first: (deadline: Deadline, key: Key)? { entries.first }

    @inlinable
    package mutating func push(_ deadline: Deadline, _ key: Key) {
        entries.append((deadline, key))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable
    package mutating func popFirst() -> (deadline: Deadline, key: Key)? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        siftDown(from: 0)
        return top
    }

    @inlinable
    package mutating func removeAll() { entries.removeAll() }

    /// Keeps only the entries `keep` accepts, in fresh storage, and restores the heap order
    /// bottom-up: O(n), for an owner that lets superseded entries pile up no further than a
    /// constant times its live ones.
    @inlinable
    package mutating func filter(_ keep: ((deadline: Deadline, key: Key)) -> Bool) {
        var kept: [(deadline: Deadline, key: Key)] = []
        for entry in entries where keep(entry) { kept.append(entry) }
        entries = kept
        var parent = entries.count / 2
        while parent > 0 {
            parent -= 1
            siftDown(from: parent)
        }
    }

    @inlinable
    mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension DeadlineHeap: Sendable where Deadline: Sendable, Key: Sendable {}
