/// How `--backend auto` chooses, from what it can know before the crawl: not fanotify only
/// because it can work, but the backend whose costs fit the tree.
///
/// inotify costs nothing for the rest of the file system (its watches see the tree's
/// directories only) but needs a watch per directory, within `fs.inotify.max_user_watches`;
/// a tree past that is polled in part. fanotify has no such limit (one mark per file system)
/// but is told of every change on the file system, and pays for each one elsewhere (about
/// 0.3 µs judged in place, docs/BENCHMARKS.md "fanotify-idle"), and it counts a write through
/// a hard link outside the tree at once, where inotify finds it at the next sync or sweep.
///
/// The tree's directory count is not known before the crawl, but it is at most the number of
/// inodes in use on its file system. So: when that number fits in the watch limit, no tree on
/// the file system can run out of watches, and inotify is chosen; when it does not (or the
/// file system does not count its inodes), a tree on it could, and fanotify is chosen where
/// it can work.
package enum AutoBackendRule {
    package enum Choice: Equatable, Sendable {
        case inotify(reason: String)
        case fanotify(reason: String)
    }

    package static func choose(inodesInUse: UInt64?, watchLimit: Int) -> Choice {
        guard let inodes = inodesInUse else {
            return .fanotify(
                reason:
                    "auto: ROOT's file system does not count its inodes, so a tree on it could need more than the "
                    + "\(watchLimit) inotify watches this user may hold (fs.inotify.max_user_watches): fanotify's "
                    + "one mark per file system has no such limit")
        }
        if inodes <= UInt64(max(0, watchLimit)) {
            return .inotify(
                reason:
                    "auto: ROOT's file system holds \(inodes) inodes, within the \(watchLimit) inotify watches this user "
                    + "may hold (fs.inotify.max_user_watches): a watch for every directory, and nothing paid for "
                    + "changes elsewhere on the file system (--backend fanotify counts writes through hard links "
                    + "outside ROOT at once)")
        }
        return .fanotify(
            reason:
                "auto: ROOT's file system holds \(inodes) inodes, more than the \(watchLimit) inotify watches this "
                + "user may hold (fs.inotify.max_user_watches), so a tree on it could run out of watches and be "
                + "polled: fanotify (CAP_SYS_ADMIN, FAN_REPORT_DFID_NAME, file handles) needs one mark per file "
                + "system instead (--backend inotify for a tree known to be small)")
    }
}
