import QuotaWatchCore

/// A name in a directory of the tree, waiting to be stat'ed.
struct PendingName: Hashable {
    var directory: DirectoryID
    var name: [UInt8]

    /// The name's bytes in one call: the synthesized hash feeds them to the hasher one at a
    /// time, which made hashing the largest cost of an event.
    func hash(into hasher: inout Hasher) {
        hasher.combine(directory.rawValue)
        name.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// The names the next flush stats, each with the moment of its latest write if it was
/// written. A written name's late re-stats are decided by that stat, not at the event: where
/// the stat shows an allocation that can still change they are scheduled from the write's
/// moment; where it shows a final one (``AllocationFinality``) nothing is. Scheduled at every
/// event, they were forgotten again at the stat for nearly every file of a burst (a
/// dictionary update and a queue entry per event, then two removals: 5 % of a burst's CPU).
///
/// Events mostly name the file the event before named (inotify reports a new file's create,
/// write and close one after the other), so the name last recorded is remembered: recording it
/// again costs a comparison of its bytes, not a hash and a probe.
struct PendingNames {
    /// The moment of the name's latest write, or ``unwritten``.
    private var entries: [PendingName: UInt64] = [:]
    /// The name last recorded, with what `entries` holds for it: true while nothing is
    /// removed from `entries` but by taking them all (``takeAll()``) or ``takeWrite(of:)``.
    private var last: (name: PendingName, writtenAt: UInt64)?
    private static let unwritten = UInt64.max

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The name is stat'ed at the next flush; a write recorded for it stays.
    mutating func insert(_ name: PendingName) {
        if let last, last.name == name { return }
        last = (name, Self.keep(&entries[name, default: Self.unwritten]))
    }

    /// The name was written at `now` (a clock that never goes back): stat'ed at the next
    /// flush, and owed late re-stats from `now` if that stat shows an allocation that can
    /// still change.
    mutating func written(_ name: PendingName, at now: UInt64) {
        if let last, last.name == name, last.writtenAt == now { return }
        entries[name] = now
        last = (name, now)
    }

    mutating func formUnion(_ names: some Sequence<PendingName>) {
        for name in names { insert(name) }
    }

    /// The moment of the name's latest write, if one is recorded; the name stays pending, as
    /// unwritten (for an entry that leaves the name, taking what the name is owed with it).
    mutating func takeWrite(of name: PendingName) -> UInt64? {
        guard let writtenAt = entries[name], writtenAt != Self.unwritten else { return nil }
        entries[name] = Self.unwritten
        if let last, last.name == name { self.last = (name, Self.unwritten) }
        return writtenAt
    }

    /// Every pending name, leaving none. Taken, not copied: emptying a table that is still
    /// shared would allocate a new one as large, on every flush, and keep a burst's peak size.
    mutating func takeAll() -> PendingNames {
        var taken = PendingNames()
        swap(&taken, &self)
        return taken
    }

    /// Reads a value through the dictionary's `default:` accessor, which adds the default
    /// when the key is missing: one probe for "add unless present".
    private static func keep(_ value: inout UInt64) -> UInt64 { value }
}

extension PendingNames: Sequence {
    struct Iterator: IteratorProtocol {
        fileprivate var entries: Dictionary<PendingName, UInt64>.Iterator

        mutating func next() -> (name: PendingName, writtenAt: UInt64?)? {
            guard let (name, writtenAt) = entries.next() else { return nil }
            return (name, writtenAt == PendingNames.unwritten ? nil : writtenAt)
        }
    }

    func makeIterator() -> Iterator { Iterator(entries: entries.makeIterator()) }
}
