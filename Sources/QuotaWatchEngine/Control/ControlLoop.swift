import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// The one thread that serves every control connection: accepts, reads requests, hands them
/// to the engine, sends replies and streams events, all on non-blocking sockets from one
/// `poll`. A client that sends nothing, trickles, or never reads holds a table entry and
/// some bytes, never a thread, so it cannot keep others from being answered.
///
/// Bounds, so that no number of such clients can either:
/// - a request must be complete within ``ControlServer/Options/requestTimeout`` of the
///   connection being accepted (a trickle does not extend it), and at most
///   ``ControlProtocol/maximumRequestBytes`` long;
/// - at most ``ControlServer/Options/maximumConnections`` connections are being served
///   (reading, waiting for the engine, or being sent their reply). One more arriving evicts
///   the oldest that has not sent a complete request, with an error line; when every one has,
///   the newcomer is answered with an error line and closed;
/// - at most ``ControlServer/Options/maximumSubscribers`` `events` streams, outside that
///   count; one more is answered with an error line. A subscriber whose socket takes nothing
///   for ``ControlServer/Options/sendTimeout`` is dropped; one that is merely slow loses its
///   oldest lines and is told how many (``ControlEventFeed``).
final class ControlLoop: Sendable {
    typealias Handler = @Sendable (ControlRequest, ControlReply) -> Void

    private let listener: UnixSocketListener
    private let options: ControlServer.Options
    private let events: ControlEventFeed
    private let handler: Handler
    private let waker: ControlLoopWaker
    private let inbox = Mutex(Inbox())
    private let encoder = ControlReplyEncoder()
    /// Held so that a connection can still be taken when the process is out of descriptors
    /// (see ``acceptTakingSpareIfShort()``); used by the serving thread only.
    private let spare: Mutex<SpareDescriptor>

    /// What other threads hand the loop.
    private struct Inbox {
        var replies: [(id: UInt64, line: [UInt8], outcome: ControlConnectionOutcome)] = []
        /// Lines for connections that stay open (a registered cleaner's contexts).
        var pushes: [(id: UInt64, line: [UInt8])] = []
        var isStopping = false
    }

    let registry: RegisteredCleaners

    init(
        listener: UnixSocketListener, options: ControlServer.Options, events: ControlEventFeed,
        registry: RegisteredCleaners, waker: ControlLoopWaker, spare: SpareDescriptor,
        handler: @escaping Handler
    ) {
        self.registry = registry
        self.spare = Mutex(spare)
        self.listener = listener
        self.options = options
        self.events = events
        self.waker = waker
        self.handler = handler
    }

    /// Ends ``run()`` soon: requests waiting for the engine are answered "shutting down".
    func requestStop() {
        inbox.withLock { $0.isStopping = true }
        waker.wake()
    }

    /// Hands the reply line for connection `id` to the loop; ignored if it has gone.
    func deliver(id: UInt64, line: [UInt8], outcome: ControlConnectionOutcome) {
        inbox.withLock { $0.replies.append((id, line, outcome)) }
        waker.wake()
    }

    /// Hands a line for connection `id`, which stays open, to the loop; ignored if it has gone.
    func push(id: UInt64, line: [UInt8]) {
        inbox.withLock { $0.pushes.append((id, line)) }
        waker.wake()
    }

    /// The serving thread's body; returns after ``requestStop()`` with every connection closed.
    func run() {
        try? listener.descriptor.setNonBlocking()
        defer {
            encoder.stop()
            spare.withLock { $0.close() }
        }
        var table = ControlConnectionTable(options: options, events: events, registry: registry)
        var acceptPausedUntil: ContinuousClock.Instant?
        while true {
            waker.reset()
            let (replies, pushes, isStopping) = inbox.withLock { inbox in
                defer {
                    inbox.replies.removeAll()
                    inbox.pushes.removeAll()
                }
                return (inbox.replies, inbox.pushes, inbox.isStopping)
            }
            let now = ContinuousClock.now
            // Event lines first: a registered cleaner's context is pushed after the engine
            // published the event that caused it (a breach), and must not overtake it on the
            // connection that subscribed to both.
            table.feedSubscribers(now: now)
            for push in pushes { table.push(id: push.id, line: push.line, now: now) }
            for reply in replies {
                table.replyArrived(id: reply.id, line: reply.line, outcome: reply.outcome, now: now)
            }
            if isStopping {
                table.shutDown()
                return
            }
            table.expire(now: now)

            if let paused = acceptPausedUntil, paused <= now { acceptPausedUntil = nil }
            // Given up for a connection when descriptors ran out; back as soon as one is free.
            spare.withLock { $0.retake() }
            var requests = [PollRequest(waker.event.descriptor, .readable)]
            if acceptPausedUntil == nil { requests.append(PollRequest(listener.descriptor, .readable)) }
            let ids = table.pollOrder()
            for id in ids { requests.append(PollRequest(table.descriptor(of: id), table.interest(of: id))) }
            let wake = [table.nextDeadline, acceptPausedUntil].compactMap { $0 }.min()
            guard let ready = try? Poller.wait(requests, timeoutMilliseconds: Self.milliseconds(until: wake, from: now))
            else { continue }

            let afterPoll = ContinuousClock.now
            var index = 1
            if acceptPausedUntil == nil {
                if !ready[index].isEmpty {
                    acceptPausedUntil = acceptWaiting(into: &table, now: afterPoll)
                }
                index += 1
            }
            for id in ids {
                let found = ready[index]
                index += 1
                if !found.isEmpty { table.serve(id: id, found: found, now: afterPoll, loop: self) }
            }
        }
    }

    /// Accepts what is waiting (a bounded number per turn); returns until when to stop
    /// accepting when descriptors ran out, since accept would fail again at once.
    private func acceptWaiting(
        into table: inout ControlConnectionTable, now: ContinuousClock.Instant
    )
        -> ContinuousClock.Instant?
    {
        for _ in 0..<64 {
            let connection: FileDescriptor?
            do {
                connection = try acceptTakingSpareIfShort()
            } catch .tooManyOpenFiles, .tooManyOpenFilesInSystem {
                // The spare is out with a connection still open, or another thread took its
                // number first: the connection waits in the backlog until one is free.
                DescriptorShortage.report(
                    "accepting a control connection", limit: ResourceLimits.openFileLimit())
                return now + .milliseconds(100)
            } catch {
                // The connection was aborted before it was taken (ECONNABORTED), or memory ran
                // short: the next turn tries again.
                return nil
            }
            guard let connection else { return nil }
            table.admit(connection, now: now)
        }
        return nil
    }

    /// Takes the next waiting connection; out of descriptors, closes the spare so that the
    /// connection gets its number, and is served: `status` always gets an answer, however
    /// many descriptors a crawl holds.
    private func acceptTakingSpareIfShort() throws(Errno) -> FileDescriptor? {
        do {
            return try listener.acceptIfWaiting()
        } catch let error where DescriptorShortage.isShortage(error) {
            guard spare.withLock({ $0.release() }) else { throw error }
            DescriptorShortage.report(
                "accepting a control connection (served on the descriptor kept in reserve)",
                limit: ResourceLimits.openFileLimit())
            return try listener.acceptIfWaiting()
        }
    }

    /// Makes the slot through which the engine answers connection `id`: a document is encoded
    /// off this thread (a large status can take milliseconds, a clean listing stats files),
    /// then handed back.
    /// `encode` turns the document into its JSON (a registered cleaner's quota rows, say, are
    /// only those of its paths).
    func replySlot(
        for id: UInt64,
        encode: @escaping @Sendable (any ControlReplyDocument) -> [UInt8] = { $0.replyJSON() }
    ) -> ReplySlot {
        ReplySlot { [self] outcome in
            switch outcome {
            case .document(let document):
                encoder.submit {
                    self.deliver(id: id, line: ControlConnection.line(encode(document)), outcome: .replied)
                }
            case .error(let message):
                deliver(id: id, line: Self.errorLine(message), outcome: .answeredWithError(message))
            case .dropped:
                let message = "the daemon dropped the request without answering"
                deliver(id: id, line: Self.errorLine(message), outcome: .answeredWithError(message))
            case .timedOut:
                let message = "the daemon did not answer within \(DurationText.seconds(options.replyTimeout ?? .zero))"
                deliver(id: id, line: Self.errorLine(message), outcome: .answeredWithError(message))
            case .shuttingDown:
                let message = "the daemon is shutting down"
                deliver(id: id, line: Self.errorLine(message), outcome: .answeredWithError(message))
            }
        }
    }

    /// Hands a decoded request to the engine.
    func handOver(_ request: ControlRequest, slot: ReplySlot) {
        handler(request, ControlReply(slot: slot))
    }

    static func errorLine(_ message: String) -> [UInt8] {
        ControlConnection.line(ControlProtocol.errorDocument(message))
    }

    /// `poll`'s timeout for waking at `deadline`, rounded up so that it never wakes early
    /// and spins; -1 without one.
    private static func milliseconds(
        until deadline: ContinuousClock.Instant?, from now: ContinuousClock.Instant
    )
        -> Int32
    {
        guard let deadline else { return -1 }
        let remaining = deadline - now
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(milliseconds, 3_600_000))
    }
}
