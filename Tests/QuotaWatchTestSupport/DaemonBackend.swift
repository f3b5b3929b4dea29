import Foundation

/// The backend every live test's daemon runs on: `QUOTAWATCH_TEST_BACKEND=fanotify` runs the
/// live suites on fanotify (root only: a daemon started as another user gets `auto`, which
/// falls back to inotify, and says so in its `ready` event); unset, inotify.
public enum DaemonBackend {
    public static var requested: String { ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_BACKEND"] ?? "inotify" }

    public static func forTests(as user: UserIdentity?) -> String {
        requested == "fanotify" && user != nil ? "auto" : requested
    }
}
