/// A min-heap of deadlines with keys: the soonest first, O(log n) to push or pop.
///
/// Entries are never removed from the middle: a superseded deadline stays in the heap and
/// the owner skips it when it surfaces (it checks the key's current deadline), which keeps
/// a rewrite of a file O(log n) instead of a search.
struct DeadlineHeap<Key: Hashable & Sendable>: Sendable {
    private var entries: [(deadline: Moment, key: Key)] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var first: (deadline: Moment, key: Key)? { entries.first }

    mutating func push(_ deadline: Moment, _ key: Key) {
        entries.append((deadline, key))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popFirst() -> (deadline: Moment, key: Key)? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        siftDown(from: 0)
        return top
    }

    private mutating func siftDown(from start: Int) {
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

    mutating func removeAll() { entries.removeAll() }

    /// Keeps only the entries `keep` accepts, in fresh storage, and restores the heap order
    /// bottom-up: O(n), for an owner that lets superseded entries pile up no further than a
    /// constant times its live ones.
    mutating func filter(_ keep: ((deadline: Moment, key: Key)) -> Bool) {
        var kept: [(deadline: Moment, key: Key)] = []
        for entry in entries where keep(entry) { kept.append(entry) }
        entries = kept
        var parent = entries.count / 2
        while parent > 0 {
            parent -= 1
            siftDown(from: parent)
        }
    }
}
