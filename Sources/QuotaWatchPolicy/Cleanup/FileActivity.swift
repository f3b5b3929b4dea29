import QuotaWatchCore

/// When a file was last active, from times that programs cannot set back to make it look
/// idle, nor forward to make it immortal.
///
/// Programs set the mtime (`curl -R`, `wget -N`, `rsync -t`, `tar -x` and `touch` all do), so
/// an mtime alone cannot say that a download is idle: a file appended to every second with its
/// mtime reset to 1970 after each write would look decades old. The ctime moves on every
/// write, rename, link and attribute change, and only the kernel sets it, so the latest of the
/// two (and of the last change the daemon saw) is the file's last activity. A time in the
/// future (`touch -d 2100`, a clock set wrong) says nothing about the past and is left out,
/// so it neither keeps a file forever nor counts as now.
package enum FileActivity {
    /// The latest of `times` (nanoseconds since the epoch) that is not after `now`; nil when
    /// every one of them is in the future.
    package static func latest(_ times: Int64..., notAfter now: Int64) -> Int64? {
        times.filter { $0 <= now }.max()
    }

    /// The last activity of a file judged idle (leftovers, `older-than`): the latest of its
    /// mtime and ctime. When both lie in the future nothing can be said, so the file is taken
    /// as active now: a deletion is never decided on a clock that went wrong.
    package static func lastActivity(modified: Int64, changed: Int64, now: Int64) -> Int64 {
        latest(modified, changed, notAfter: now) ?? now
    }

    /// `expire`'s age, as systemd-tmpfiles reckons it: from the newest of atime, mtime and ctime
    /// (times in the future left out, as above).
    package static func lastUse(modified: Int64, changed: Int64, accessed: Int64, now: Int64) -> Int64 {
        latest(modified, changed, accessed, notAfter: now) ?? now
    }

    /// Whether a file last active at `activity` has been idle for more than `age` at `now`.
    package static func isIdle(since activity: Int64, longerThan age: Duration, now: Int64) -> Bool {
        Saturating.difference(now, min(activity, now)) > age.clampedNanoseconds
    }
}
