import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The engine's side of the policy layer: starting it after the first crawl, one pass per
/// turn with the participants' end of turn, a fresh placement after a resync, and SIGHUP.
/// Owned by the engine thread.
final class EnginePolicy {
    /// Quotas and disk levels; set once the first crawl is placed. Mutated where it is stored
    /// (`monitor?.…`): a copy taken out and put back would share its tables, and the first
    /// change would copy every one of them.
    private(set) var monitor: PolicyMonitor?
    private let config: PolicyConfig
    private let reloadConfig: (@Sendable () throws -> PolicyConfig)?
    private let participants: [any EngineParticipant]
    private let publisher: EnginePublisher
    private let clock: MonotonicEngineClock

    init(options: EngineOptions, publisher: EnginePublisher, clock: MonotonicEngineClock) {
        config = options.policy
        reloadConfig = options.reloadPolicy
        participants = options.participants
        self.publisher = publisher
        self.clock = clock
    }

    /// The earliest moment the policy layer wants a turn (a free-space reading, a re-split).
    var nextDeadline: UInt64? { monitor?.nextDeadline }

    /// Places the first crawl's tree; returns the events of every directory already past a line,
    /// for the caller to publish once the participants have started (published earlier, they
    /// would start no run).
    func start(_ live: inout LiveTree<KernelFileSystem>, root: FileDescriptor) -> [PolicyEvent] {
        monitor = PolicyMonitor(config: config) { try? root.fileSystemSpace() }
        let events = monitor?.rebuild(&live.tree, keepingQuotaStates: false, now: clock.now, time: .now()) ?? []
        // After the rebuild, which finds the leftover rules the tree's shape turns on.
        live.logStructureChanges(monitor?.hasRules ?? false)
        return events
    }

    /// The end of a turn: the policy pass, then each participant's, evaluated again at once
    /// when one asks (the loop may sleep until the next change).
    func endTurn(_ live: inout LiveTree<KernelFileSystem>, now: UInt64) {
        turn(&live)
        for participant in participants {
            if participant.endTurn(&live, &monitor, now: now) { turn(&live) }
        }
    }

    /// After each turn (and before a quota status is answered): structure changes, changed
    /// tallies, ROOT's total and due timers, as events.
    func turn(_ live: inout LiveTree<KernelFileSystem>) {
        guard monitor != nil else { return }
        let changes = live.drainStructureChanges()
        // Before the monitor forgets them: the removed directories' ids may be reused below.
        var events: [PolicyEvent] = []
        if monitor != nil, !changes.removed.isEmpty {
            for participant in participants { events += participant.forgetting(changes.removed, &monitor!) }
        }
        events += monitor?.afterTurn(&live.tree, changes: changes, now: clock.now, time: .now()) ?? []
        events += evaluated(&live, changed: changes.files)
        for event in events { publisher.publish(event) }
    }

    /// What the participants find once the policy layer has evaluated the tree (leftovers).
    func evaluated(_ live: inout LiveTree<KernelFileSystem>, changed: [StructureChanges.FileName]) -> [PolicyEvent] {
        guard monitor != nil else { return [] }
        return participants.flatMap { participant in
            participant.evaluated(&live, &monitor!, changed: changed, now: clock.now)
        }
    }

    /// A resync's new tree, with new ids: placed afresh, and every directory past a line
    /// reported again.
    func rebuildAfterResync(_ live: inout LiveTree<KernelFileSystem>) {
        var events = monitor?.rebuild(&live.tree, keepingQuotaStates: false, now: clock.now, time: .now()) ?? []
        events += evaluated(&live, changed: [])
        for event in events { publisher.publish(event) }
    }

    /// SIGHUP: reads the config again. A bad one is reported and changes nothing; a good one
    /// is placed over the live tree, no crawl, each (directory, rule) keeping its state.
    func reload(_ live: inout LiveTree<KernelFileSystem>) {
        guard let reloadConfig else {
            Log.plain(.notice, "SIGHUP: there is no --config file to read again; the rules stay as they are")
            return
        }
        publisher.notifyObservers(.reloading, live, monitor: monitor)
        let config: PolicyConfig
        do {
            config = try reloadConfig()
        } catch {
            let message = "\(error)"
            Log.plain(.warning, "SIGHUP: the config was not reloaded, the rules in force stay: \(message)")
            publisher.emit(.configError(message: message, time: WallTime.now().iso8601))
            publisher.notifyObservers(.reloaded(applied: false), live, monitor: monitor)
            return
        }
        // Changes applied so far are evaluated under the old rules first.
        turn(&live)
        guard monitor != nil else {
            publisher.notifyObservers(.reloaded(applied: false), live, monitor: monitor)
            return
        }
        for participant in participants { participant.reloaded(config) }
        var events =
            monitor?.rebuild(&live.tree, config: config, keepingQuotaStates: true, now: clock.now, time: .now()) ?? []
        live.logStructureChanges(monitor?.hasRules ?? false)
        events += evaluated(&live, changed: [])
        publisher.emit(
            .configReloaded(quotas: config.quotas.count, budgets: config.budgets.count, time: WallTime.now().iso8601))
        for event in events { publisher.publish(event) }
        announceStanding(live.tree, publishedByReload: events)
        publisher.notifyObservers(.reloaded(applied: true), live, monitor: monitor)
    }

    /// Hands the participants the states that stand after a reload, less what the reload
    /// published itself (a hook it added heard those already).
    private func announceStanding(_ tree: TallyTree, publishedByReload published: [PolicyEvent]) {
        guard let monitor else { return }
        let heard = Set(published.map { StandingKey($0) })
        let standing = monitor.standingEvents(tree, now: clock.now, time: .now()).filter {
            !heard.contains(StandingKey($0))
        }
        for participant in participants { participant.standing(standing) }
    }

    /// What makes two events announce the same standing state: the kind, the path and the rule.
    private struct StandingKey: Hashable {
        var kind: String
        var path: [UInt8]?
        var rule: String?

        init(_ event: PolicyEvent) {
            kind = event.kind
            path = event.path
            switch event.detail {
            case .quota(_, _, _, _, _, _, let rule, _), .leftover(_, _, _, let rule): self.rule = rule
            default: rule = nil
            }
        }
    }
}
