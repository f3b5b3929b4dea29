import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The leftover rules as an ``EngineParticipant``: after every evaluation of the policy layer
/// (each turn, the start, a reload, a resync) the ``LeftoverPass`` matches the files re-stat'ed
/// against the idle-file rules and reports those due as `leftover`, and before the policy layer
/// forgets removed directories it reports their leftovers `leftover_gone`. Its deadline is the
/// policy layer's (``PolicyMonitor/leftoverDeadline``), where the rules' candidates live. Built
/// by the `run` command, on the kernel: open writers are read from `/proc`.
package final class LeftoverParticipant: EngineParticipant {
    package init() {}

    package func start(_ start: ParticipantStart) -> EngineFailure? { nil }

    package func forgetting(_ removed: [DirectoryID], _ monitor: inout PolicyMonitor) -> [PolicyEvent] {
        LeftoverPass<KernelFileSystem>.leftoversOfRemovedDirectories(removed, &monitor)
    }

    package func evaluated(
        _ live: inout LiveTree<KernelFileSystem>, _ monitor: inout PolicyMonitor,
        changed: [StructureChanges.FileName], now: UInt64
    ) -> [PolicyEvent] {
        let pass = LeftoverPass<KernelFileSystem>(
            isOpenForWriting: { status in
                do {
                    return try OpenWriters.first(device: status.device, inode: status.inode) != nil
                } catch {
                    return true
                }
            }, wallClock: WallClock.nanosecondsSinceEpoch)
        return pass.run(&monitor, &live, changed: changed, now: now)
    }

    package func stop() {}
}
