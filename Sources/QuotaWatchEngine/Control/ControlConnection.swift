import QuotaWatchSystem

/// One control connection as the serving thread sees it: what it is doing, what it has sent
/// and what is still to go, and by when. A plain value owned by ``ControlLoop``'s thread.
struct ControlConnection {
    enum Phase {
        /// Reading the request line; it must be complete by ``deadline``, however it trickles.
        case reading
        /// The request is with the engine; the reply comes back through the slot.
        case waiting(ReplySlot)
        /// Sending ``output``, then closing.
        case sending
        /// An `events` subscriber: lines from the subscription go out as the socket takes them.
        case streaming(ControlEventFeed.Subscription)
        /// A registered cleaner: context lines, its quota events and the answers to its status
        /// requests go out; its replies and requests come in, one per line, until it closes.
        case registered(RegisteredSession)
    }

    let descriptor: FileDescriptor
    let acceptedAt: ContinuousClock.Instant
    var phase: Phase = .reading
    /// The request line read so far.
    var input: [UInt8] = []
    /// Bytes to send, from ``sent`` on; added to through ``append(_:)`` only, which bounds them.
    private(set) var output: [UInt8] = []
    private(set) var sent = 0
    /// Set when a line would have left more than ``maximumQueuedBytes`` waiting: the client is
    /// not reading what it is sent, and the table drops it (``ControlConnectionTable/stream``).
    private(set) var overflowed = false
    /// When the connection is given up: the end of the request time while reading, of the
    /// reply time while waiting, of the send time while sending (or while a subscriber's
    /// socket takes nothing).
    var deadline: ContinuousClock.Instant?
    /// What is reported when it closes.
    var outcome: ControlConnectionOutcome = .replied

    init(descriptor: FileDescriptor, acceptedAt: ContinuousClock.Instant, requestTimeout: Duration) {
        self.descriptor = descriptor
        self.acceptedAt = acceptedAt
        self.deadline = acceptedAt + requestTimeout
    }

    var isReading: Bool {
        if case .reading = phase { return true }
        return false
    }

    var isStreaming: Bool {
        if case .streaming = phase { return true }
        return false
    }

    var hasOutput: Bool { sent < output.count }

    /// Bytes queued and not yet taken by the socket.
    var queuedBytes: Int { output.count - sent }

    /// The one bound on what any control connection may have waiting to be sent: replies,
    /// error lines, a registered cleaner's contexts and answers, event lines. A client that
    /// asks for more (bad commands, stale replies) than it reads would otherwise grow the
    /// daemon's memory without end. One line alone always goes, whatever its size: the daemon
    /// wrote it, and its size is the daemon's (a status reply, a context with many candidates).
    static let maximumQueuedBytes = 4 << 20

    /// What `poll` should wait for. A connection waiting for the engine asks for nothing:
    /// bytes after the request line (or its half-close) are not its business, but a peer
    /// that closes both ways is still reported, as a hang-up.
    var interest: PollEvents {
        switch phase {
        case .reading: return .readable
        case .waiting: return []
        case .sending: return .writable
        case .streaming, .registered: return hasOutput ? [.readable, .writable] : .readable
        }
    }

    /// Queues `document` as the one reply line, to be sent by `deadline`.
    mutating func reply(_ line: [UInt8], outcome: ControlConnectionOutcome, deadline: ContinuousClock.Instant) {
        output = []
        sent = 0
        append(line)
        self.outcome = outcome
        self.deadline = deadline
        phase = .sending
    }

    /// Queues `line` after what is still to go (a connection that stays open); past
    /// ``maximumQueuedBytes`` nothing more is queued and the connection is marked ``overflowed``.
    mutating func append(_ line: [UInt8]) {
        guard !overflowed else { return }
        if queuedBytes > 0, queuedBytes + line.count > Self.maximumQueuedBytes {
            overflowed = true
            return
        }
        if sent > 0 {
            output.removeFirst(sent)
            sent = 0
        }
        output += line
    }

    /// Sends what the socket takes now. Returns true when the output has all gone.
    mutating func flush() throws(Errno) -> Bool {
        while hasOutput {
            let count = try descriptor.sendAvailable(output, from: sent)
            if count == 0 { return false }
            sent += count
        }
        output.removeAll()
        sent = 0
        return true
    }

    /// `document` as it goes on the wire: newlines inside it (which JSON allows only between
    /// tokens) become spaces, so that only the last one ends the line.
    static func line(_ document: [UInt8]) -> [UInt8] {
        var line = document.map { $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 }
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// Event lines as sent to a subscriber, one per line.
    static func eventLines(_ lines: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line.utf8.map { $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 }
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
