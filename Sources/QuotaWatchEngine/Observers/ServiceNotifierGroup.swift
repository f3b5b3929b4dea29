import Synchronization

/// systemd's notify protocol for a daemon serving several roots: each root's engine keeps its
/// own ``ServiceNotifier``, whose messages go through one member sink of this group, and the
/// manager hears one service.
///
/// - `READY=1` once every root still running has finished its first crawl (and after a
///   reload, once each has answered it);
/// - `WATCHDOG=1` once every root still running has pinged since the last ping sent, so one
///   stuck engine stops the pings and systemd restarts the whole daemon;
/// - `STATUS=` the roots ready and the last root's own line;
/// - `STOPPING=1` when the last root stops. A root that fails alone (deleted, unreadable)
///   leaves the group: the others go on and the manager is not told the service stops.
package final class ServiceNotifierGroup: Sendable {
    private struct State {
        var ready: Set<Int> = []
        var pinged: Set<Int> = []
        var stopped: Set<Int> = []
        var sentReady = false
    }

    private let count: Int
    private let roots: [String]
    private let sink: any ServiceMessageSink
    private let state = Mutex(State())

    /// - Parameter roots: each member's root as reports show it, in member order.
    package init(roots: [String], sink: any ServiceMessageSink) {
        self.count = roots.count
        self.roots = roots
        self.sink = sink
    }

    /// One notifier per root, in `roots`' order, all speaking through one group to the
    /// manager; nil when no service manager listens.
    package static func notifiers(roots: [String], environment: [String: String]) -> [ServiceNotifier]? {
        guard ServiceNotifier.isListening(environment) else { return nil }
        let group = ServiceNotifierGroup(roots: roots, sink: NotifySocketSender())
        let period = ServiceNotifier.managersWatchdogPeriod()
        return roots.indices.map { ServiceNotifier(watchdogPeriod: period, sink: group.member($0)) }
    }

    /// The sink member `index`'s notifier posts to.
    package func member(_ index: Int) -> any ServiceMessageSink { Member(group: self, index: index) }

    fileprivate func post(_ message: String, from index: Int) {
        var out: [String] = []
        var finish = false
        state.withLock { state in
            for line in message.split(separator: "\n").map(String.init) {
                switch line {
                case "READY=1":
                    state.ready.insert(index)
                    let running = count - state.stopped.count
                    if state.ready.subtracting(state.stopped).count == running {
                        out.append(line)
                        state.sentReady = true
                    }
                case "RELOADING=1":
                    // Each root answers the reload; READY=1 again once all have.
                    if state.ready.count == count - state.stopped.count { out.append(line) }
                    state.ready.remove(index)
                case "WATCHDOG=1":
                    state.pinged.insert(index)
                    if state.pinged.union(state.stopped).count == count {
                        out.append(line)
                        state.pinged = []
                    }
                case "STOPPING=1":
                    state.stopped.insert(index)
                    state.ready.remove(index)
                    if state.stopped.count == count {
                        out.append(line)
                        finish = true
                    }
                default:
                    if line.hasPrefix("STATUS=") {
                        let ready = state.ready.subtracting(state.stopped).count
                        out.append(
                            "STATUS=\(ready) of \(count) roots ready; \(roots[index]): \(line.dropFirst("STATUS=".count))"
                        )
                    } else if line.hasPrefix("MONOTONIC_USEC=") {
                        if out.contains("RELOADING=1") { out.append(line) }
                    } else {
                        out.append(line)
                    }
                }
            }
        }
        if !out.isEmpty { sink.post(out.joined(separator: "\n")) }
        if finish { sink.finish() }
    }

    private struct Member: ServiceMessageSink {
        let group: ServiceNotifierGroup
        let index: Int

        func post(_ message: String) { group.post(message, from: index) }
        // The group finishes the manager's sink when its last member stops.
        func finish() {}
    }
}
