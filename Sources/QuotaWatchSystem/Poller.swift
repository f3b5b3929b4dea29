import Glibc

/// What `poll` is asked to wait for on a descriptor, and what it found.
package struct PollEvents: OptionSet, Hashable, Sendable {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }

    package static let readable = PollEvents(rawValue: Int16(POLLIN))
    package static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// Reported whatever was asked: the peer closed both directions.
    package static let hungUp = PollEvents(rawValue: Int16(POLLHUP))
    /// Reported whatever was asked: an error is pending on the socket.
    package static let failed = PollEvents(rawValue: Int16(POLLERR))
    /// Reported whatever was asked: the descriptor is not open.
    package static let invalid = PollEvents(rawValue: Int16(POLLNVAL))
}

/// One descriptor and what to wait for on it.
package struct PollRequest: Sendable {
    package var descriptor: FileDescriptor
    package var events: PollEvents

    package init(_ descriptor: FileDescriptor, _ events: PollEvents) {
        self.descriptor = descriptor
        self.events = events
    }
}

/// Waits on many descriptors at once, for the control socket's one serving thread.
package enum Poller {
    /// Returns, for each request in order, what happened on it (empty when nothing did),
    /// waiting at most `timeoutMilliseconds` (-1: until something happens).
    ///
    /// The corresponding C function is `poll`.
    package static func wait(_ requests: [PollRequest], timeoutMilliseconds: Int32) throws(Errno) -> [PollEvents] {
        var entries = requests.map { pollfd(fd: $0.descriptor.rawValue, events: $0.events.rawValue, revents: 0) }
        let result = unsafe entries.withUnsafeMutableBufferPointer { buffer in
            valueOrErrno { unsafe system_poll(buffer.baseAddress!, buffer.count, timeoutMilliseconds) }
        }
        _ = try result.get()
        return entries.map { PollEvents(rawValue: $0.revents) }
    }
}

/// What a receive on a non-blocking socket found.
package enum NonBlockingReceive: Hashable, Sendable {
    /// This many bytes were stored at the start of the buffer.
    case received(Int)
    /// Nothing is waiting now.
    case wouldBlock
    /// The peer closed (or shut down) its side.
    case endOfFile
}

extension FileDescriptor {
    /// Receives what is waiting, up to `buffer.count` bytes, without waiting.
    ///
    /// The corresponding C function is `recv` with `MSG_DONTWAIT`.
    package func receiveAvailable(into buffer: inout [UInt8]) throws(Errno) -> NonBlockingReceive {
        let result = unsafe buffer.withUnsafeMutableBytes { bytes in
            valueOrErrno { unsafe system_recv(rawValue, bytes.baseAddress!, bytes.count, CInt(MSG_DONTWAIT)) }
        }
        switch result {
        case .success(0): return .endOfFile
        case .success(let count): return .received(count)
        case .failure(.resourceTemporarilyUnavailable): return .wouldBlock
        case .failure(let error): throw error
        }
    }

    /// Reads what a non-blocking descriptor (an inotify or fanotify queue) holds now, up to
    /// `buffer.count` bytes: how many, 0 when nothing is queued.
    ///
    /// The corresponding C function is `read`.
    package func readAvailable(into buffer: inout [UInt8]) throws(Errno) -> Int {
        let result = unsafe buffer.withUnsafeMutableBytes { bytes in
            valueOrErrno { unsafe system_read(rawValue, bytes.baseAddress!, bytes.count) }
        }
        switch result {
        case .success(let count): return count
        case .failure(.resourceTemporarilyUnavailable): return 0
        case .failure(let error): throw error
        }
    }

    /// Sends as much of `bytes[offset...]` as the socket takes now; returns how many bytes
    /// went (0 when its buffer is full). A peer that has gone away is EPIPE (or ECONNRESET),
    /// never SIGPIPE.
    ///
    /// The corresponding C function is `send` with `MSG_DONTWAIT | MSG_NOSIGNAL`.
    package func sendAvailable(_ bytes: [UInt8], from offset: Int) throws(Errno) -> Int {
        guard offset < bytes.count else { return 0 }
        let flags = CInt(MSG_DONTWAIT) | CInt(MSG_NOSIGNAL)
        let result = unsafe bytes.withUnsafeBytes { buffer in
            valueOrErrno {
                unsafe system_send(rawValue, buffer.baseAddress! + offset, buffer.count - offset, flags)
            }
        }
        switch result {
        case .success(let count): return count
        case .failure(.resourceTemporarilyUnavailable): return 0
        case .failure(let error): throw error
        }
    }
}

extension UnixSocketListener {
    /// Takes the next waiting connection without waiting: nil when none is. The new
    /// descriptor is non-blocking and close-on-exec from the start. Call ``FileDescriptor/setNonBlocking()``
    /// on the listener first, or this waits like ``accept()``.
    ///
    /// The corresponding C function is `accept4` with `SOCK_NONBLOCK | SOCK_CLOEXEC`.
    package func acceptIfWaiting() throws(Errno) -> FileDescriptor? {
        let flags = CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue)
        switch valueOrErrno({ system_accept4(descriptor.rawValue, flags) }) {
        case .success(let raw): return FileDescriptor(rawValue: raw)
        case .failure(.resourceTemporarilyUnavailable): return nil
        case .failure(let error): throw error
        }
    }
}
