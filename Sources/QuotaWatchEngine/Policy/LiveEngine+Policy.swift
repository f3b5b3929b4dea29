import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The engine's side of the policy layer: starting it after the first crawl, one pass per
/// turn, and SIGHUP.
extension LiveEngine {
    /// Places the first crawl's tree; returns the events of every directory already past a line,
    /// for the caller to publish once the participants have started (published earlier, they
    /// would start no run).
    func startPolicy(_ live: inout LiveTree<KernelFileSystem>, root: FileDescriptor) -> [PolicyEvent] {
        monitor = PolicyMonitor(config: options.policy) { try? root.fileSystemSpace() }
        let events = monitor?.rebuild(&live.tree, keepingQuotaStates: false, now: clock.now, time: .now()) ?? []
        // After the rebuild, which finds the leftover rules the tree's shape turns on.
        live.logStructureChanges(monitor?.hasRules ?? false)
        return events
    }

    /// After each turn (and before a quota status is answered): structure changes, changed
    /// tallies, ROOT's total and due timers, as events. The monitor is mutated where it is
    /// stored (`monitor?.…`): a copy taken out and put back would share its tables, and the
    /// first change would copy every one of them.
    func policyTurn(_ live: inout LiveTree<KernelFileSystem>) {
        guard monitor != nil else { return }
        let changes = live.drainStructureChanges()
        // Before the monitor forgets them: the removed directories' ids may be reused below.
        var events: [PolicyEvent] = []
        if monitor != nil, !changes.removed.isEmpty {
            for participant in options.participants { events += participant.forgetting(changes.removed, &monitor!) }
        }
        events += monitor?.afterTurn(&live.tree, changes: changes, now: clock.now, time: .now()) ?? []
        events += evaluated(&live, changed: changes.files)
        for event in events { publish(event) }
    }

    /// What the participants find once the policy layer has evaluated the tree (leftovers).
    func evaluated(_ live: inout LiveTree<KernelFileSystem>, changed: [StructureChanges.FileName]) -> [PolicyEvent] {
        guard monitor != nil else { return [] }
        return options.participants.flatMap { participant in
            participant.evaluated(&live, &monitor!, changed: changed, now: clock.now)
        }
    }

    /// SIGHUP: reads the config again. A bad one is reported and changes nothing; a good one
    /// is placed over the live tree, no crawl, each (directory, rule) keeping its state.
    func reloadPolicy(_ live: inout LiveTree<KernelFileSystem>) {
        guard let reload = options.reloadPolicy else {
            Log.write(
                .notice, Diagnostic.note("SIGHUP: there is no --config file to read again; the rules stay as they are"))
            return
        }
        notifyObservers(.reloading, live)
        let config: PolicyConfig
        do {
            config = try reload()
        } catch {
            let message = "\(error)"
            Log.write(
                .warning, Diagnostic.note("SIGHUP: the config was not reloaded, the rules in force stay: \(message)"))
            emit(.configError(message: message, time: WallTime.now().iso8601))
            notifyObservers(.reloaded(applied: false), live)
            return
        }
        // Changes applied so far are evaluated under the old rules first.
        policyTurn(&live)
        guard monitor != nil else {
            notifyObservers(.reloaded(applied: false), live)
            return
        }
        for participant in options.participants { participant.reloaded(config) }
        var events =
            monitor?.rebuild(&live.tree, config: config, keepingQuotaStates: true, now: clock.now, time: .now()) ?? []
        live.logStructureChanges(monitor?.hasRules ?? false)
        events += evaluated(&live, changed: [])
        emit(.configReloaded(quotas: config.quotas.count, budgets: config.budgets.count, time: WallTime.now().iso8601))
        for event in events { publish(event) }
        notifyObservers(.reloaded(applied: true), live)
    }
}
