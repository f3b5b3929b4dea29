import QuotaWatchCore
import QuotaWatchPolicy
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
        return EngineReport(
            events: live.counters.events, rescannedDirectories: live.counters.rescannedDirectories,
            overflows: live.counters.overflows, watches: live.watchCount,
            degraded: live.degradedPaths,
            requests: requestsAnswered, cpuSeconds: Self.seconds(ThreadCPUTime.current()), backend: backendName,
            backendReason: backendReason, unreadable: Self.unreadable(of: live),
            verification: Self.verification(live.verification),
            fanotify: live.fileSystem.backend.marks.map { (marks: $0, directories: live.watchCount) })
    }

    /// The verification sweep as `status --json` shows it; nil when it is off.
    static func verification(_ sweep: VerificationSweep) -> VerificationReport? {
        guard sweep.isOn else { return nil }
        func wall(_ nanoseconds: Int64) -> String { WallTime(millisecondsSinceEpoch: nanoseconds / 1_000_000).iso8601 }
        func pass(_ pass: VerificationSweep.Pass?) -> VerificationReport.Pass? {
            pass.map {
                VerificationReport.Pass(
                    started: wall($0.startedWall), ended: $0.endedWall.map(wall), checked: $0.checked,
                    corrections: $0.corrections)
            }
        }
        return VerificationReport(
            everySeconds: Double(sweep.settings.every.nanoseconds) / 1e9, cpuBudget: sweep.settings.cpuBudget,
            passes: sweep.passesFinished, checked: sweep.checkedTotal,
            corrections: Dictionary(
                uniqueKeysWithValues: VerificationSweep.Reason.allCases.map {
                    ($0.rawValue, sweep.corrections[$0] ?? 0)
                }),
            current: pass(sweep.current), last: pass(sweep.last))
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
