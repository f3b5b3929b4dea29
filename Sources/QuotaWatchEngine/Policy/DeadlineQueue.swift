import QuotaWatchCore

/// Timed work of the policy layer, earliest first: a ``DeadlineHeap`` of (deadline, task).
/// Each task has at most one deadline in force; scheduling it again supersedes the earlier
/// entry, which is skipped when it reaches the top. Leftover candidates join it with one task
/// per file, which is why it is a heap and not a handful of fields.
struct DeadlineQueue<Task: Hashable> {
    private var heap = DeadlineHeap<UInt64, Task>()
    private var current: [Task: UInt64] = [:]

    /// The earliest deadline, possibly of a superseded entry: at worst one early wake-up,
    /// after which ``takeDue(now:)`` drops it.
    var nextDeadline: UInt64? { heap.first?.deadline }

    var isEmpty: Bool { current.isEmpty }

    /// Runs `task` at `deadline`, replacing its earlier deadline if any.
    mutating func schedule(_ task: Task, at deadline: UInt64) {
        current[task] = deadline
        heap.push(deadline, task)
    }

    mutating func cancel(_ task: Task) { current.removeValue(forKey: task) }

    /// The tasks due at `now`, earliest first, each removed from the queue.
    mutating func takeDue(now: UInt64) -> [Task] {
        var due: [Task] = []
        while let top = heap.first, top.deadline <= now {
            _ = heap.popFirst()
            if current[top.key] == top.deadline {
                current.removeValue(forKey: top.key)
                due.append(top.key)
            }
        }
        return due
    }
}
