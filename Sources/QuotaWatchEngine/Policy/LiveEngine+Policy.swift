import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The engine's side of the policy layer: starting it after the first crawl, one pass per
/// turn, and SIGHUP.
extension LiveEngine {
    /// Places the first crawl's tree and reports every directory already past a line.
    func startPolicy(_ live: inout LiveTree<KernelFileSystem>, root: FileDescriptor) {
        var monitor = PolicyMonitor(config: options.policy) { try? root.fileSystemSpace() }
        live.logStructureChanges(monitor.hasRules)
        let events = monitor.rebuild(&live.tree, keepingQuotaStates: false, now: clock.now, time: .now())
        self.monitor = monitor
        for event in events { publish(event) }
    }

    /// After each turn (and before a quota status is answered): structure changes, changed
    /// tallies, ROOT's total and due timers, as events.
    func policyTurn(_ live: inout LiveTree<KernelFileSystem>) {
        guard var monitor else { return }
        let changes = live.drainStructureChanges()
        let events = monitor.afterTurn(&live.tree, changes: changes, now: clock.now, time: .now())
        self.monitor = monitor
        for event in events { publish(event) }
    }

    /// SIGHUP: reads the config again. A bad one is reported and changes nothing; a good one
    /// is placed over the live tree, no crawl, each (directory, rule) keeping its state.
    func reloadPolicy(_ live: inout LiveTree<KernelFileSystem>) {
        guard let reload = options.reloadPolicy else {
            try? FileDescriptor.standardError.writeAll(
                "quotawatch: SIGHUP: there is no --config file to read again; the rules stay as they are\n".utf8)
            return
        }
        let config: PolicyConfig
        do {
            config = try reload()
        } catch {
            let message = "\(error)"
            try? FileDescriptor.standardError.writeAll(
                "quotawatch: SIGHUP: the config was not reloaded, the rules in force stay: \(message)\n".utf8)
            emit(.configError(message: message, time: WallTime.now().iso8601))
            return
        }
        // Changes applied so far are evaluated under the old rules first.
        policyTurn(&live)
        guard var monitor else { return }
        live.logStructureChanges(!config.quotas.isEmpty || !config.budgets.isEmpty)
        let events = monitor.rebuild(&live.tree, config: config, keepingQuotaStates: true, now: clock.now, time: .now())
        self.monitor = monitor
        emit(.configReloaded(quotas: config.quotas.count, budgets: config.budgets.count, time: WallTime.now().iso8601))
        for event in events { publish(event) }
    }
}
