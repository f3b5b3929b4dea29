import QuotaWatchCore
import QuotaWatchSystem

/// Subtrees the engine cannot watch (the watch limit, a lack of descriptors) are polled; the
/// operator is told once per change of that set, with the way out.
extension LiveEngine {
    func reportDegradation(of live: LiveTree<KernelFileSystem>) {
        let tree = live.tree
        let paths = live.degradedDirectories.map { EscapedName.string(tree.relativePath(of: $0)) }
        guard paths != reportedDegraded else { return }
        reportedDegraded = paths
        guard !paths.isEmpty else { return }
        let limits = InotifyLimits.current()
        let limit = limits.effectiveMaxUserWatches
        let needed = tree.directoryCount + 64
        var where_ = "fs.inotify.max_user_watches is \(limits.maxUserWatches)"
        if let namespaceLimit = limits.userNamespaceMaxWatches, namespaceLimit < limits.maxUserWatches {
            where_ += " and this user namespace allows \(namespaceLimit) (/proc/sys/user/max_inotify_watches)"
        }
        if live.isShortOfDescriptors {
            // Not the watch limit: directories that could not be opened for lack of descriptors.
            let message =
                DescriptorShortage.message(
                    "listing \(paths.count) subtree(s) of \(options.rootDisplay)", limit: ResourceLimits.openFileLimit()
                )
                + "; until they can be listed their totals are not exact, and they are listed again every "
                + "\(options.pollInterval.components.seconds) s and at each sync: "
                + paths.prefix(5).joined(separator: ", ")
            Log.warning(message)
            emit(.degraded(paths: paths, watchesNeeded: needed, maxUserWatches: limit, message: message))
            return
        }
        if let fanotify = live.fileSystem.backend as? FanotifyBackend {
            // Not a watch limit: a file system below the root that takes no filesystem mark.
            let message =
                "\(paths.count) subtree(s) of \(options.rootDisplay) are on a file system fanotify cannot mark ("
                + fanotify.watches.unmarkableReasons.map(\.description).joined(separator: ", ")
                + "); they are listed again every \(options.pollInterval.components.seconds) s and at each sync: "
                + paths.prefix(5).joined(separator: ", ")
            Log.warning(message)
            emit(.degraded(paths: paths, watchesNeeded: 0, maxUserWatches: limit, message: message))
            return
        }
        let message =
            "inotify watch limit reached: \(where_); \(options.rootDisplay) needs about \(needed) watches "
            + "(one per directory, shared with other programs of this user). Raise it with "
            + "'sysctl fs.inotify.max_user_watches=\(max(needed * 2, limits.maxUserWatches))' (persist it in "
            + "/etc/sysctl.d/) or raise /proc/sys/user/max_inotify_watches in the namespace. Until then "
            + "\(paths.count) subtree(s) are polled every \(options.pollInterval.components.seconds) s: "
            + paths.prefix(5).joined(separator: ", ")
        Log.warning(message)
        emit(.degraded(paths: paths, watchesNeeded: needed, maxUserWatches: limit, message: message))
    }
}
