import QuotaWatchCore
import QuotaWatchSystem

/// Whether ROOT's path still leads to the directory being watched. When ROOT's parent is
/// renamed (and a new directory made at ROOT's path), no watch the daemon holds hears of it:
/// ROOT itself was not moved within its parent. Without this the daemon would go on reporting
/// the old tree under the path's name. Checked every poll interval, on the engine thread: one
/// `fstatat` of the path, followed as opening ROOT followed it.
final class RootPathCheck {
    private let path: [UInt8]
    private let watched: FileIdentity
    private let interval: UInt64
    private(set) var nextDeadline: UInt64

    init(path: [UInt8], watched: FileStatus, interval: Duration, now: UInt64) {
        self.path = path
        self.watched = FileIdentity(watched)
        self.interval = max(interval.nanoseconds, 1)
        nextDeadline = now + self.interval
    }

    /// What the path leads to instead of the watched directory.
    enum Finding {
        /// Nothing: ROOT was deleted or moved away (its own events usually tell first).
        case missing
        /// Another directory (or file): something above ROOT was renamed or replaced.
        case replaced
    }

    /// What the path leads to instead, once due; nil while it leads to the watched directory,
    /// or while that cannot be told (no permission, descriptors short: not a reason to stop).
    func check(now: UInt64) -> Finding? {
        guard now >= nextDeadline else { return nil }
        nextDeadline = now + interval
        do {
            let status = try FileDescriptor.currentWorkingDirectory.statusFollowingSymlinks(of: path)
            return FileIdentity(status) == watched ? nil : .replaced
        } catch .noSuchFileOrDirectory, .notDirectory {
            return .missing
        } catch {
            return nil
        }
    }
}
