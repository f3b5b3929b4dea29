import QuotaWatchCore
import QuotaWatchSystem

/// What the engine reports of itself beside the tree's counters (`ready`, `status`, the
/// observers' views): the backend in use and why, and the requests answered, made into the
/// `EngineReport` a status shows. Owned by the engine thread.
final class EngineReporter {
    let backendName: String
    let backendReason: String
    /// Control requests the engine thread has answered.
    var requestsAnswered: UInt64 = 0

    init(backendName: String, backendReason: String) {
        self.backendName = backendName
        self.backendReason = backendReason
    }

    /// These with the tree's own counters, as `status` shows them.
    func report(of live: LiveTree<KernelFileSystem>) -> EngineReport {
        let tree = live.tree
        return EngineReport(
            events: live.counters.events, rescannedDirectories: live.counters.rescannedDirectories,
            overflows: live.counters.overflows, watches: live.watchCount,
            degraded: live.degradedDirectories.map { EscapedName.string(tree.relativePath(of: $0)) },
            requests: requestsAnswered, cpuSeconds: Self.seconds(ThreadCPUTime.current()), backend: backendName,
            backendReason: backendReason, unreadable: Self.unreadable(of: live))
    }

    /// The unreadable directories as reports show them; nil when there are none.
    static func unreadable(of live: LiveTree<KernelFileSystem>) -> [UnreadableDirectory]? {
        let directories = live.unreadableDirectories
        guard !directories.isEmpty else { return nil }
        return directories.map {
            UnreadableDirectory(
                path: EscapedName.string(live.tree.relativePath(of: $0)), reason: UnreadableDirectory.permissionReason)
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
