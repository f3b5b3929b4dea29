/// Timed work of the policy layer, earliest first: a binary heap of (deadline, task). Each
/// task has at most one deadline in force; scheduling it again supersedes the earlier entry,
/// which is skipped when it reaches the top. Leftover candidates join it with one task per
/// file, which is why it is a heap and not a handful of fields.
struct DeadlineQueue<Task: Hashable> {
    private var heap: [(deadline: UInt64, task: Task)] = []
    private var current: [Task: UInt64] = [:]

    /// The earliest deadline, possibly of a superseded entry: at worst one early wake-up,
    /// after which ``takeDue(now:)`` drops it.
    var nextDeadline: UInt64? { heap.first?.deadline }

    var isEmpty: Bool { current.isEmpty }

    /// Runs `task` at `deadline`, replacing its earlier deadline if any.
    mutating func schedule(_ task: Task, at deadline: UInt64) {
        current[task] = deadline
        heap.append((deadline, task))
        siftUp(heap.count - 1)
    }

    mutating func cancel(_ task: Task) { current.removeValue(forKey: task) }

    /// The tasks due at `now`, earliest first, each removed from the queue.
    mutating func takeDue(now: UInt64) -> [Task] {
        var due: [Task] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if current[top.task] == top.deadline {
                current.removeValue(forKey: top.task)
                due.append(top.task)
            }
        }
        return due
    }

    private mutating func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var index = 0
        while true {
            let left = 2 * index + 1
            let right = left + 1
            var smallest = index
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == index { return }
            heap.swapAt(index, smallest)
            index = smallest
        }
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard heap[index].deadline < heap[parent].deadline else { return }
            heap.swapAt(index, parent)
            index = parent
        }
    }
}
