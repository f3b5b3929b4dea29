import QuotaWatchCore

/// The re-stats a written file is owed: one `lateDelay` after its last write (allocation can
/// still change after close) and one `writebackDelay` after that (writeback can add a block
/// with no event).
///
/// Each name has at most one deadline of each kind, kept in a dictionary; the queues hold the
/// same deadlines in order, so the next one due is a queue's head. A write that supersedes a
/// deadline, or a name that goes away, leaves its queue entry behind to be skipped when it
/// comes due. Those stale entries are counted, and once they outnumber the live ones a queue
/// is rewritten without them: memory follows the names that still exist, not every name ever
/// written within the window, at amortised O(1) per entry.
///
/// Files a crawl finds inside the window (a directory filled just before the daemon started)
/// come by the hundred thousand with one deadline: they wait as a batch of record numbers with
/// their inodes, 16 bytes each, not as a name each (a name, its hash entries and its queue
/// entries took some 200 bytes a file, which made a freshly filled directory of a million
/// files cost three times its tree for 35 s). A record follows its file through renames.
struct RestatTimers {
    /// A file found by a crawl, told from a later file given the same record by its inode.
    struct FoundFile {
        var file: FileID
        var inode: UInt64
    }

    private(set) var late: [PendingName: UInt64] = [:]
    private(set) var writeback: [PendingName: UInt64] = [:]
    private var lateQueue = OrderedTimerQueue<PendingName>()
    private var writebackQueue = OrderedTimerQueue<PendingName>()
    /// Crawl batches waiting for their late, then their writeback, re-stat; each in deadline
    /// order, as `now` never goes back and both delays are constant.
    private var foundLate = OrderedTimerQueue<[FoundFile]>()
    private var foundWriteback = OrderedTimerQueue<[FoundFile]>()

    var nextDeadline: UInt64? {
        [lateQueue.nextDeadline, writebackQueue.nextDeadline, foundLate.nextDeadline, foundWriteback.nextDeadline]
            .compactMap { $0 }.min()
    }

    /// Every crawl-found file with a re-stat still to come.
    var foundFiles: [FoundFile] {
        foundLate.waiting.flatMap(\.element) + foundWriteback.waiting.flatMap(\.element)
    }

    /// A crawl found `files` written within the window.
    mutating func foundByCrawl(_ files: [FoundFile], lateDeadline deadline: UInt64) {
        guard !files.isEmpty else { return }
        foundLate.append(files, at: deadline)
    }

    /// The crawl-found files whose re-stat is due at `now`.
    mutating func dueFound(now: UInt64, writebackDelay: UInt64) -> [FoundFile] {
        var due: [FoundFile] = []
        while let (_, files) = foundLate.popDue(now: now) {
            due += files
            foundWriteback.append(files, at: now + writebackDelay)
        }
        foundLate.compact()
        while let (_, files) = foundWriteback.popDue(now: now) { due += files }
        foundWriteback.compact()
        return due
    }

    /// Every name with a re-stat still to come.
    var names: Set<PendingName> { Set(late.keys).union(writeback.keys) }

    /// Entries held in the queues, live and stale: what the memory bound is about.
    var queuedCount: Int { lateQueue.count + writebackQueue.count }

    /// The name was written at `now`: its late re-stat moves to `deadline`.
    mutating func written(_ name: PendingName, lateDeadline deadline: UInt64) {
        // A batch shares one `now`: a file's second write in it needs no second entry.
        guard late.updateValue(deadline, forKey: name) != deadline else { return }
        lateQueue.append(name, at: deadline)
        Self.compactIfMostlyStale(&lateQueue, live: late)
    }

    /// The name is gone (deleted, renamed over, moved away): nothing is owed to it any more.
    mutating func forget(_ name: PendingName) {
        // Most names are owed nothing (a burst of small files on ext4): no hashing for them.
        guard !late.isEmpty || !writeback.isEmpty else { return }
        let removedLate = late.removeValue(forKey: name) != nil
        let removedWriteback = writeback.removeValue(forKey: name) != nil
        if removedLate { Self.compactIfMostlyStale(&lateQueue, live: late) }
        if removedWriteback { Self.compactIfMostlyStale(&writebackQueue, live: writeback) }
    }

    /// The file at `old` now has the name `new`: its re-stats follow it.
    mutating func rename(_ old: PendingName, to new: PendingName) {
        if let owed = take(old) { give(owed, to: new) }
    }

    /// The deadlines a name is owed, carried by an entry while it has no name of its own (parked
    /// by a move, displaced by an exchange).
    struct Owed: Equatable {
        var late: UInt64?
        var writeback: UInt64?
    }

    /// Takes the name's deadlines away from it, for an entry that leaves the name for a while.
    mutating func take(_ name: PendingName) -> Owed? {
        let owed = Owed(late: late.removeValue(forKey: name), writeback: writeback.removeValue(forKey: name))
        guard owed.late != nil || owed.writeback != nil else { return nil }
        if owed.late != nil { Self.compactIfMostlyStale(&lateQueue, live: late) }
        if owed.writeback != nil { Self.compactIfMostlyStale(&writebackQueue, live: writeback) }
        return owed
    }

    /// Gives `name` the deadlines an entry carried (what the name had is superseded).
    mutating func give(_ owed: Owed, to name: PendingName) {
        if let deadline = owed.late, late.updateValue(deadline, forKey: name) != deadline {
            lateQueue.append(name, at: deadline)
        }
        if let deadline = owed.writeback, writeback.updateValue(deadline, forKey: name) != deadline {
            writebackQueue.append(name, at: deadline)
        }
        Self.compactIfMostlyStale(&lateQueue, live: late)
        Self.compactIfMostlyStale(&writebackQueue, live: writeback)
    }

    /// The names whose re-stat is due at `now`; a late re-stat schedules the writeback one.
    mutating func due(now: UInt64, writebackDelay: UInt64) -> [PendingName] {
        var due: [PendingName] = []
        while let (deadline, name) = lateQueue.popDue(now: now) {
            guard late[name] == deadline else { continue }
            late.removeValue(forKey: name)
            due.append(name)
            let next = now + writebackDelay
            if writeback.updateValue(next, forKey: name) != next { writebackQueue.append(name, at: next) }
        }
        lateQueue.compact()
        while let (deadline, name) = writebackQueue.popDue(now: now) {
            guard writeback[name] == deadline else { continue }
            writeback.removeValue(forKey: name)
            // Written again meanwhile: its own late re-stat comes, and another one after it.
            if late[name] == nil { due.append(name) }
        }
        writebackQueue.compact()
        // Dictionaries keep their largest size when emptied one key at a time.
        if late.isEmpty && late.capacity > 1024 { late = [:] }
        if writeback.isEmpty && writeback.capacity > 1024 { writeback = [:] }
        return due
    }

    mutating func removeAll() { self = RestatTimers() }

    /// Rewrites `queue` without the entries `live` no longer has, once they are more than half.
    private static func compactIfMostlyStale(_ queue: inout OrderedTimerQueue<PendingName>, live: [PendingName: UInt64])
    {
        let stale = queue.count - live.count
        guard stale > 1024 && stale > live.count else { return }
        queue.removeAll { live[$0.element] != $0.deadline }
    }
}
