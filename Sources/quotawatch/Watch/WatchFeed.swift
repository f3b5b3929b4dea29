import Dispatch
import QuotaWatchView
import Synchronization

/// Where the engine's side (an observer on the engine thread, or the threads that ask a
/// daemon) leaves frames and events for the side that shows them (the screen or the pipe),
/// and where that side says which directory it wants. Every call is a short locked copy.
final class WatchFeed: Sendable {
    /// Event lines kept for a display that has not taken them yet; beyond this the oldest go.
    static let eventCapacity = 10_000

    private let state = Mutex(State())
    private let changed = DispatchSemaphore(value: 0)

    struct State {
        var directory: [UInt8] = []
        var frame: WatchFrame?
        var events: [String] = []
        var droppedEvents = 0
        var notices: [String] = []
        var logLines: [(warns: Bool, text: String)] = []
        var finished: Finish?
    }

    /// Why the producing side ended.
    struct Finish: Sendable {
        var status: ExitStatus
        /// Said on stderr once the terminal is back; nil for a quiet end.
        var message: String?
    }

    /// What the display takes in one go.
    struct Taken {
        var frame: WatchFrame?
        var events: [String]
        var droppedEvents: Int
        var notices: [String]
        /// The daemon's own log lines, which the screen shows in its event log.
        var logLines: [(warns: Bool, text: String)]
        var finished: Finish?
    }

    /// The directory the display shows, raw and relative to the root.
    var directory: [UInt8] { state.withLock { $0.directory } }

    func show(_ directory: [UInt8]) { state.withLock { $0.directory = directory } }

    func publish(_ frame: WatchFrame) {
        state.withLock { $0.frame = frame }
        changed.signal()
    }

    /// One event's JSON line.
    func append(event line: String) {
        state.withLock { state in
            state.events.append(line)
            if state.events.count > Self.eventCapacity {
                state.events.removeFirst(state.events.count - Self.eventCapacity)
                state.droppedEvents += 1
            }
        }
        changed.signal()
    }

    func notice(_ text: String) {
        state.withLock { $0.notices.append(text) }
        changed.signal()
    }

    /// A line of the engine's log (``Log/redirect(to:)``); `warns` for a warning or an error.
    func log(_ text: String, warns: Bool) {
        state.withLock { state in
            state.logLines.append((warns, text))
            if state.logLines.count > Self.eventCapacity { state.logLines.removeFirst() }
        }
        changed.signal()
    }

    /// The first call wins.
    func finish(_ status: ExitStatus, message: String? = nil) {
        state.withLock { state in
            if state.finished == nil { state.finished = Finish(status: status, message: message) }
        }
        changed.signal()
    }

    var isFinished: Bool { state.withLock { $0.finished != nil } }

    func take() -> Taken {
        state.withLock { state in
            let taken = Taken(
                frame: state.frame, events: state.events, droppedEvents: state.droppedEvents, notices: state.notices,
                logLines: state.logLines, finished: state.finished)
            state.frame = nil
            state.events.removeAll()
            state.droppedEvents = 0
            state.notices.removeAll()
            state.logLines.removeAll()
            return taken
        }
    }

    /// Waits until something is published or `milliseconds` pass.
    func waitForChange(milliseconds: Int) {
        _ = changed.wait(timeout: .now() + .milliseconds(milliseconds))
    }
}
