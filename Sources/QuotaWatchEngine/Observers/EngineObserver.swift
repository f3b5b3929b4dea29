import QuotaWatchCore
import QuotaWatchPolicy

/// Something that follows the engine from outside: systemd's notify protocol, the history
/// recorder, the metrics exporter, the `watch` view. One seam for all of them, so the engine
/// loop names none.
///
/// Every method is called on the engine thread and must return at once: an observer copies
/// what it needs and hands the work to a thread of its own. A slow observer would stall every
/// tally, which the engine promises never happens.
package protocol EngineObserver: AnyObject, Sendable {
    /// The engine clock's instant (``MonotonicEngineClock``) at which this observer next wants
    /// ``engineTurn(_:)``; nil while it waits for nothing. Read once per loop turn: keep it cheap.
    var nextTurn: UInt64? { get }

    /// The first crawl is done, a SIGHUP reload starts or ends, or the engine is stopping.
    func engine(_ change: EngineLifecycle, _ view: EngineView)

    /// Every event the engine emits, in order, whether or not `--events` prints it.
    func engineEmitted(_ event: ObservedEvent)

    /// Called at or after ``nextTurn``, with the live tree. O(what the observer reads).
    func engineTurn(_ view: EngineView)
}

extension EngineObserver {
    package var nextTurn: UInt64? { nil }
    package func engine(_ change: EngineLifecycle, _ view: EngineView) {}
    package func engineEmitted(_ event: ObservedEvent) {}
    package func engineTurn(_ view: EngineView) {}
}

/// The moments of the engine's life an observer hears of.
package enum EngineLifecycle: Sendable, Equatable {
    /// The first crawl is done and the policy layer has started.
    case ready
    /// SIGHUP: the config is being read again.
    case reloading
    /// The reload ended; `applied` is false when the config was bad and the old rules stay.
    case reloaded(applied: Bool)
    /// The loop has returned; threads are being joined.
    case stopping
}

/// An event as the engine emitted it: its value, and the line `--events jsonl` prints.
package enum ObservedEvent: Sendable {
    case engine(EngineEvent)
    case policy(PolicyEvent)

    /// The line, `root` field included: the engine's ``EngineOptions/rootDisplay``.
    package func jsonLine(root: String) -> String {
        switch self {
        case .engine(let event): event.jsonLine(root: root)
        case .policy(let event): event.jsonLine(root: root)
        }
    }
}

/// A read-only look at the engine, valid only during the call that received it.
///
/// Keep nothing of it past the call: the tree and the monitor are copy-on-write values, and a
/// copy still alive when the engine next writes would make it copy the whole tree.
package struct EngineView {
    /// The engine clock's reading when the view was made.
    package let now: UInt64
    /// The root as reports show it: absolute, escaped.
    package let rootDisplay: String
    package let tree: TallyTree
    /// Events, overflows, re-listed directories, watches, degraded subtrees.
    package let counters: EngineReport
    /// An overflow was seen and the resync has not finished.
    package let isResyncing: Bool
    let monitor: PolicyMonitor?

    /// Quota directories with their limits and states, and the disk level; nil before the
    /// policy layer has started. Costs O(quota directories).
    package func quotas() -> QuotaStatus? {
        monitor?.snapshot(root: rootDisplay, tree: tree, now: now).status
    }
}
