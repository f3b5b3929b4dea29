import QuotaWatchCore

/// The decisions of the leftover kinds other than `idle-file` (whose timer is
/// ``LeftoverTimer``), on plain values the engine already has.
package enum LeftoverDecisions {
    /// One entry of a directory, as `keep-newest` compares them.
    package struct Entry: Sendable, Hashable {
        package var name: [UInt8]
        /// The modification time, in nanoseconds since the epoch, as `FileStatus` holds it.
        package var modifiedNanoseconds: Int64

        package init(name: [UInt8], modifiedNanoseconds: Int64) {
            self.name = name
            self.modifiedNanoseconds = modifiedNanoseconds
        }
    }

    /// `keep-newest`: every entry but the `keep` newest. Ties are broken by name so the
    /// answer does not depend on listing order.
    package static func beyondNewest(_ entries: [Entry], keep: Int) -> [Entry] {
        let newestFirst = entries.sorted {
            $0.modifiedNanoseconds != $1.modifiedNanoseconds
                ? $0.modifiedNanoseconds > $1.modifiedNanoseconds : $0.name.lexicographicallyPrecedes($1.name)
        }
        return Array(newestFirst.dropFirst(max(keep, 0)))
    }

    /// `older-than`: idle for more than `age` before `nowNanoseconds` (wall clock, since the
    /// epoch), counted from the latest of the mtime and the ctime (``FileActivity``), so an old
    /// mtime set by `tar -x` or `curl -R` on a file written a moment ago does not make it old,
    /// and a time in the future does not keep it young.
    package static func isOlder(
        modifiedNanoseconds: Int64, changedNanoseconds: Int64, than age: Duration, nowNanoseconds: Int64
    ) -> Bool {
        let activity = FileActivity.lastActivity(
            modified: modifiedNanoseconds, changed: changedNanoseconds, now: nowNanoseconds)
        return FileActivity.isIdle(since: activity, longerThan: age, now: nowNanoseconds)
    }

    /// `directory-over`: the directory's allocated total is above the limit.
    package static func isOver(allocated: UInt64, limit: UInt64) -> Bool { allocated > limit }
}
