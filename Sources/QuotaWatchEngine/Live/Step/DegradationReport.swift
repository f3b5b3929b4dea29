import QuotaWatchCore
import QuotaWatchSystem

/// Subtrees the engine cannot watch (the watch limit, a lack of descriptors) are polled; the
/// operator is told once per change of that set, with the way out.
struct DegradationReport {
    /// ROOT as shown.
    let rootDisplay: String
    let pollInterval: Duration
    /// The degraded subtrees last reported.
    private var reported: [String] = []
    /// The unreadable directories last warned of.
    private var reportedUnreadable: Set<DirectoryID> = []

    init(rootDisplay: String, pollInterval: Duration) {
        self.rootDisplay = rootDisplay
        self.pollInterval = pollInterval
    }

    /// The warning for directories found unreadable since the last one: nil when none is new.
    mutating func unreadableWarning(of live: LiveTree<KernelFileSystem>) -> String? {
        let directories = live.unreadableDirectories
        let current = Set(directories)
        let new = directories.filter { !reportedUnreadable.contains($0) }
        reportedUnreadable = current
        guard !new.isEmpty else { return nil }
        let paths = new.map { HumanText.name(Array(live.tree.relativePath(of: $0))) }
        return "\(new.count) director\(new.count == 1 ? "y" : "ies") of \(rootDisplay) cannot be read "
            + "(permission denied), so what is inside is not counted and the totals above are short: "
            + paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? ", …" : "")
            + "; run as a user that can read them, or grant read and search permission ('status' lists them)"
    }

    /// The `degraded` event (its message logged) when the set of degraded subtrees changed
    /// to a non-empty one; nil when there is nothing new to say.
    mutating func report(of live: LiveTree<KernelFileSystem>) -> EngineEvent? {
        let tree = live.tree
        let paths = live.degradedPaths
        guard paths != reported else { return nil }
        reported = paths
        guard !paths.isEmpty else { return nil }
        let limits = InotifyLimits.current()
        let limit = limits.effectiveMaxUserWatches
        let needed = tree.directoryCount + 64
        var where_ = "fs.inotify.max_user_watches is \(limits.maxUserWatches)"
        if let namespaceLimit = limits.userNamespaceMaxWatches, namespaceLimit < limits.maxUserWatches {
            where_ += " and this user namespace allows \(namespaceLimit) (/proc/sys/user/max_inotify_watches)"
        }
        if live.isShortOfDescriptors {
            // Not the watch limit: directories that could not be listed, or names in them that
            // could not be stat'ed, for lack of descriptors.
            let message =
                DescriptorShortage.message(
                    "reading \(paths.count) subtree(s) of \(rootDisplay)", limit: ResourceLimits.openFileLimit()
                )
                + "; until they can be read their totals are not exact, and they are read again at the next "
                + "change, every \(pollInterval.components.seconds) s and at each sync: "
                + paths.prefix(5).joined(separator: ", ")
            Log.warning(message)
            return .degraded(paths: paths, watchesNeeded: needed, maxUserWatches: limit, message: message)
        }
        if let watches = live.fileSystem.backend.fanotifyWatches {
            // Not a watch limit: a file system below the root that takes no filesystem mark.
            let message =
                "\(paths.count) subtree(s) of \(rootDisplay) are on a file system fanotify cannot mark ("
                + watches.unmarkableReasons.map(\.description).joined(separator: ", ")
                + "); they are listed again every \(pollInterval.components.seconds) s and at each sync: "
                + paths.prefix(5).joined(separator: ", ")
            Log.warning(message)
            return .degraded(paths: paths, watchesNeeded: 0, maxUserWatches: limit, message: message)
        }
        let message =
            "inotify watch limit reached: \(where_); \(rootDisplay) needs about \(needed) watches "
            + "(one per directory, shared with other programs of this user). Raise it with "
            + "'sysctl fs.inotify.max_user_watches=\(max(needed * 2, limits.maxUserWatches))' (persist it in "
            + "/etc/sysctl.d/) or raise /proc/sys/user/max_inotify_watches in the namespace. Until then "
            + "\(paths.count) subtree(s) are polled every \(pollInterval.components.seconds) s: "
            + paths.prefix(5).joined(separator: ", ")
        Log.warning(message)
        return .degraded(paths: paths, watchesNeeded: needed, maxUserWatches: limit, message: message)
    }
}
