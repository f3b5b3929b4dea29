import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchView
import Synchronization

/// `watch --socket PATH`, or `watch ROOT` when a daemon already serves ROOT: the same view
/// from control requests (`status` of the directory shown and of the root, `status --quotas`)
/// a few times a second, and the log from the daemon's event stream.
enum WatchAttached {
    /// Time between two rounds of status requests.
    static let refresh: Duration = .milliseconds(250)
    /// Names directly in the directory shown asked for: the largest subdirectories and the
    /// largest files, this many of each, of which the largest this many are listed (the list
    /// says how many more there are): every entry of any directory a person pages through.
    static let maximumEntries = WatchObserver.maximumEntries
    /// A listing longer than this is asked for once a second, not every ``refresh``.
    static let longListing = 2_000

    /// Whether a daemon answers on `socket`: nil when nothing listens there, else the error
    /// a request got (nil error: it answered).
    static func probe(_ socket: [UInt8]) -> ControlClientError?? {
        do {
            _ = try ControlClient.request(
                socketPath: socket, ControlRequest(.status(.tree(TreeSelection(depth: 0)))), timeout: .seconds(5))
            return .some(nil)
        } catch .noDaemon {
            return nil
        } catch {
            return .some(error)
        }
    }

    static func session(
        socket: [UInt8], screen: Bool, phone: PhoneStorageOptions.Measured? = nil
    ) throws(ControlClientError) -> WatchSession {
        TerminationSignals.block()
        let feed = WatchFeed()
        let stopping = StopFlag()
        let wake = DispatchSemaphore(value: 0)

        let stream = try subscribe(socket, recent: screen ? WatchModel().logCapacity : 0)
        // The log starts with what the daemon remembers, oldest first; the greeting after them
        // says where they end and the live events begin.
        for line in stream.recentLines { feed.append(event: String(decoding: line, as: UTF8.self)) }
        feed.append(event: String(decoding: stream.greeting, as: UTF8.self))
        let events = JoinableThread(name: "watch-events") {
            while let line = stream.nextLine() { feed.append(event: String(decoding: line, as: UTF8.self)) }
            if !stopping.isSet { feed.finish(.failure, message: wentAway(socket)) }
        }
        let poller: JoinableThread? =
            screen
            ? JoinableThread(name: "watch-status") {
                poll(socket: socket, feed: feed, phone: phone, stopping: stopping, wake: wake)
            } : nil

        let signals: TerminationSignalWaiter?
        let signalThread: JoinableThread?
        do {
            let waiter = try TerminationSignalWaiter()
            signals = waiter
            signalThread = JoinableThread(name: "watch-signals") {
                while let signal = waiter.wait() {
                    guard signal != TerminationSignals.hangup else { continue }
                    feed.finish(.success, message: "quotawatch: stopped by \(TerminationSignals.name(signal))")
                    return
                }
            }
        } catch {
            signals = nil
            signalThread = nil
        }
        return WatchSession(
            feed: feed, socketPath: socket, attachedTo: EscapedName.string(socket), deletes: nil,
            stop: {
                stopping.set()
                wake.signal()
                stream.close()
                signals?.stop()
                events.join()
                poller?.join()
                signalThread?.join()
                stream.release()
                signals?.close()
            })
    }

    /// The event stream, with up to `recent` events from before it; from a daemon older than
    /// that request, the stream alone.
    private static func subscribe(_ socket: [UInt8], recent: Int) throws(ControlClientError) -> ControlEventStream {
        do {
            return try ControlEventStream(socketPath: socket, timeout: .seconds(10), recent: recent)
        } catch .daemonError(_, let message) where recent > 0 && message.contains("'recent'") {
            return try ControlEventStream(socketPath: socket, timeout: .seconds(10))
        }
    }

    /// The daemon's end, seen from the view: an error, whether it was stopped or killed (the
    /// stream cannot tell), since the view did not end it and has nothing left to show.
    static func wentAway(_ socket: [UInt8]) -> String {
        Diagnostic.error(
            "the daemon on \(HumanText.name(socket)) went away (stopped or killed): nothing is watched any more")
    }

    /// Asks for a frame every ``refresh`` until stopped.
    private static func poll(
        socket: [UInt8], feed: WatchFeed, phone: PhoneStorageOptions.Measured?, stopping: StopFlag,
        wake: DispatchSemaphore
    ) {
        let clock = ContinuousClock()
        let start = clock.now
        var answeredOnce = false
        var listed = 0
        while !stopping.isSet {
            do {
                var frame = try frame(socket: socket, directory: feed.directory)
                if let phone { frame.phone = try phoneStorage(phone, socket: socket, root: frame) }
                let elapsed = clock.now - start
                frame.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                listed = frame.entries.count
                feed.publish(frame)
                answeredOnce = true
            } catch .noDaemon where answeredOnce {
                feed.finish(.failure, message: wentAway(socket))
                return
            } catch {
                feed.notice("status: \(error)")
            }
            // A long listing is a long reply: asked for less often.
            let pause = listed > longListing ? Duration.seconds(1) : refresh
            _ = wake.wait(timeout: .now() + .milliseconds(Int(pause.components.attoseconds / 1_000_000_000_000_000)))
        }
    }

    /// The phone's figure from the frame's root totals and one more request, for
    /// `Library/Caches` alone (a sandbox without one counts it as empty).
    static func phoneStorage(
        _ phone: PhoneStorageOptions.Measured, socket: [UInt8], root frame: WatchFrame
    ) throws(ControlClientError) -> PhoneStorage {
        let caches = TreeSelection(subtree: Array(PhoneStorage.cachesPath.utf8), depth: 0)
        let reply = try? request(socket, .tree(caches), .seconds(10))
        let cachesRow = reply.flatMap { try? StatusWire.report(from: $0) }?.directories.first
        return PhoneStorage(
            version: phone.version, rawAllocated: frame.rootAllocated, rawApparent: frame.rootApparent,
            cachesAllocated: cachesRow?.allocated, appAllocated: phone.appAllocated)
    }

    /// One frame: the directory shown with its largest subdirectories and files, the root's
    /// totals, the quotas.
    static func frame(socket: [UInt8], directory: [UInt8]) throws(ControlClientError) -> WatchFrame {
        let timeout: Duration = .seconds(10)
        // The directory, its largest subdirectories and its largest files: rows the list can show.
        let listing: [UInt8]
        do {
            listing = try request(
                socket,
                .tree(TreeSelection(subtree: directory, depth: 1, top: maximumEntries + 1, files: maximumEntries)),
                timeout)
        } catch .daemonError where !directory.isEmpty {
            // The directory shown went away (removed or moved): a frame that says so, from which
            // the view goes up, rather than the daemon's refusal in the footer.
            return try goneFrame(socket: socket, directory: directory)
        }
        let report: StatusReport
        do {
            report = try StatusWire.report(from: listing)
        } catch {
            throw .protocolError(path: socket, detail: "the status reply could not be read: \(error)")
        }
        var frame = WatchFrame(root: report.root, directory: directory)
        let shownPath = directory.isEmpty ? "." : EscapedName.string(directory)
        let children =
            report.directories.filter { $0.path != shownPath }.map { (row: $0, isDirectory: true) }
            + (report.files ?? []).map { (row: $0, isDirectory: false) }
        let entries = children.map { child in
            let raw = EscapedName.bytes(child.row.path) ?? Array(child.row.path.utf8)
            let name = raw.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? raw
            return TallyTree.Child(
                name: name, isDirectory: child.isDirectory,
                tally: Tally(
                    usage: Usage(allocated: child.row.allocated, apparent: child.row.apparent),
                    files: child.row.files, dirs: child.row.dirs))
        }
        frame.entries = entries.sorted(by: TallyTree.Child.largestFirst).prefix(maximumEntries).map(WatchObserver.entry)
        frame.directoryExists = report.directories.contains { $0.path == shownPath }
        if let shown = report.directories.first(where: { $0.path == shownPath }) {
            // Totals count the whole subtree: what is directly in the directory is its total less
            // its subdirectories' (directories exactly; files but for hard links within it).
            let subdirectories = children.filter(\.isDirectory).map(\.row)
            let direct =
                Int(clamping: shown.dirs - min(shown.dirs, subdirectories.reduce(0) { $0 + $1.dirs }))
                + Int(clamping: shown.files - min(shown.files, subdirectories.reduce(0) { $0 + $1.files }))
            frame.omittedEntries = max(0, direct - frame.entries.count)
        }
        var root = report.directories.first { $0.path == "." }
        if root == nil {
            let rootReply = try request(socket, .tree(TreeSelection(depth: 0)), timeout)
            root = (try? StatusWire.report(from: rootReply))?.directories.first
        }
        if let root {
            frame.rootAllocated = root.allocated
            frame.rootApparent = root.apparent
            frame.rootFiles = root.files
            frame.rootDirs = root.dirs
        }
        if let quotas = try? request(socket, .quotas, timeout), let status = try? QuotaStatus.decode(quotas) {
            WatchObserver.apply(status, to: &frame)
        }
        frame.events = report.engine.events
        frame.overflows = report.engine.overflows
        frame.degraded = report.engine.degraded.count
        frame.unreadable = report.engine.unreadable?.count ?? 0
        return frame
    }

    /// A frame of `directory`, no longer in the tree: the root's totals, no entries.
    private static func goneFrame(socket: [UInt8], directory: [UInt8]) throws(ControlClientError) -> WatchFrame {
        let reply = try request(socket, .tree(TreeSelection(depth: 0)), .seconds(10))
        guard let report = try? StatusWire.report(from: reply), let root = report.directories.first else {
            throw .protocolError(path: socket, detail: "the status reply of the root could not be read")
        }
        var frame = WatchFrame(root: report.root, directory: directory)
        frame.directoryExists = false
        frame.rootAllocated = root.allocated
        frame.rootApparent = root.apparent
        frame.rootFiles = root.files
        frame.rootDirs = root.dirs
        return frame
    }

    private static func request(
        _ socket: [UInt8], _ query: StatusQuery, _ timeout: Duration
    ) throws(ControlClientError) -> [UInt8] {
        try ControlClient.request(socketPath: socket, ControlRequest(.status(query)), timeout: timeout)
    }
}

/// Set once, read from any thread.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
