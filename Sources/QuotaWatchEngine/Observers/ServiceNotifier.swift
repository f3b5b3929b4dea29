import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// systemd's notify protocol for `quotawatch run` as a `Type=notify` service: `READY=1` once
/// the first crawl is done, a `STATUS=` line kept current, `RELOADING=1` and `READY=1` around
/// SIGHUP, `STOPPING=1`, and `WATCHDOG=1` every half of the watchdog period.
///
/// The watchdog ping is decided on the engine thread, in the engine's own turn (``nextTurn``
/// is the ping's deadline), so an engine that stops turning stops pinging and systemd
/// restarts it. Sending is a ``ServiceMessageSink``'s job, off the engine thread: a datagram
/// to a manager that does not read would block.
///
/// The status is looked at once a second (the engine wakes for it while a manager listens)
/// and sent only when its text changed.
package final class ServiceNotifier: EngineObserver {
    /// How often the status line is looked at, in engine-clock nanoseconds.
    package static let statusPeriod: UInt64 = 1_000_000_000

    private struct State {
        var nextStatus: UInt64?
        var nextPing: UInt64?
        var lastStatus: String?
    }

    private let state = Mutex(State())
    private let pingInterval: UInt64?
    private let sink: any ServiceMessageSink

    /// - Parameters:
    ///   - watchdogPeriod: `WATCHDOG_USEC` as a duration; pings go every half of it.
    ///   - sink: where messages go; it must not block.
    package init(watchdogPeriod: Duration?, sink: any ServiceMessageSink) {
        self.sink = sink
        pingInterval = watchdogPeriod.map { period in
            // WATCHDOG_USEC is the environment's word: any value up to 2⁶⁴ µs must not trap.
            max(1, UInt64(max(0, period.clampedNanoseconds)) / 2)
        }
    }

    /// The notifier for this process: nil when no service manager listens (`NOTIFY_SOCKET`
    /// unset), so nothing is sent and the engine never wakes for it.
    package static func forServiceManager(environment: [String: String]) -> ServiceNotifier? {
        guard isListening(environment) else { return nil }
        return ServiceNotifier(watchdogPeriod: managersWatchdogPeriod(), sink: NotifySocketSender())
    }

    /// True when a service manager listens (`NOTIFY_SOCKET` set).
    static func isListening(_ environment: [String: String]) -> Bool {
        guard let socket = environment["NOTIFY_SOCKET"] else { return false }
        return !socket.isEmpty
    }

    /// `WATCHDOG_USEC`, or nil (with a warning when it is there but unreadable).
    static func managersWatchdogPeriod() -> Duration? {
        do {
            return try ServiceManager.watchdogPeriod()
        } catch {
            Log.warning("WATCHDOG_USEC cannot be read (\(error)); no watchdog pings are sent")
            return nil
        }
    }

    package var nextTurn: UInt64? {
        state.withLock { state in [state.nextStatus, state.nextPing].compactMap { $0 }.min() }
    }

    package func engine(_ change: EngineLifecycle, _ view: EngineView) {
        switch change {
        case .ready:
            let status = Self.statusLine(view)
            state.withLock { state in
                state.lastStatus = status
                state.nextStatus = view.now + Self.statusPeriod
                state.nextPing = pingInterval.map { _ in view.now }
            }
            sink.post("READY=1\nSTATUS=\(status)")
        case .reloading:
            // MONOTONIC_USEC lets a Type=notify-reload manager (systemd 253 and later) tell this
            // reload from an earlier one; Type=notify ignores it.
            sink.post("RELOADING=1\nMONOTONIC_USEC=\(ServiceManager.monotonicMicroseconds)")
        case .reloaded(let applied):
            var status = Self.statusLine(view)
            if !applied { status += "; the last reload failed, the rules in force stay" }
            let changed = state.withLock { state in
                defer { state.lastStatus = status }
                return state.lastStatus != status
            }
            sink.post(changed ? "READY=1\nSTATUS=\(status)" : "READY=1")
        case .stopping:
            state.withLock { state in
                state.nextStatus = nil
                state.nextPing = nil
            }
            sink.post("STOPPING=1")
            sink.finish()
        }
    }

    package func engineTurn(_ view: EngineView) {
        let due = state.withLock { state in
            (
                status: state.nextStatus.map { $0 <= view.now } ?? false,
                ping: state.nextPing.map { $0 <= view.now } ?? false
            )
        }
        var message: [String] = []
        if due.ping, let pingInterval {
            message.append("WATCHDOG=1")
            state.withLock { state in state.nextPing = view.now + pingInterval }
        }
        if due.status {
            let status = Self.statusLine(view)
            let changed = state.withLock { state in
                state.nextStatus = view.now + Self.statusPeriod
                defer { state.lastStatus = status }
                return state.lastStatus != status
            }
            if changed { message.append("STATUS=\(status)") }
        }
        if !message.isEmpty { sink.post(message.joined(separator: "\n")) }
    }

    /// The one-line status `systemctl status` shows: files, directories, allocated bytes, the
    /// disk level and the quota directories in breach. O(quota directories).
    package static func statusLine(_ view: EngineView) -> String {
        let total = view.tree.tally(of: view.tree.root)
        var parts = [
            "\(counted(view.tree.fileCount, "file")), \(counted(view.tree.directoryCount, "directory", "directories")), "
                + "\(ByteFormat.decimal.string(total.allocated)) allocated"
        ]
        if let quotas = view.quotas() {
            let breached = Set(quotas.quotas.filter { $0.state == .breach }.map(\.path)).count
            parts.append("level \(quotas.level.level.rawValue)")
            parts.append("\(counted(breached, "quota directory", "quota directories")) in breach")
        }
        if !view.counters.degraded.isEmpty {
            parts.append("\(counted(view.counters.degraded.count, "subtree")) polled")
        }
        if view.isResyncing { parts.append("resyncing after an overflow") }
        return parts.joined(separator: "; ")
    }

    private static func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}

/// Where ``ServiceNotifier`` hands its messages; `post` must return at once.
package protocol ServiceMessageSink: Sendable {
    /// Queues one notify message (newline-separated assignments).
    func post(_ message: String)
    /// Sends what is queued, waiting a bounded time, and sends nothing more.
    func finish()
}
