import Glibc

/// A client socket that does exactly what a test tells it, byte by byte, for playing a
/// misbehaving client of the control socket or the metrics port: connect and say nothing,
/// send half a request, trickle, never read. Every send and receive gives up after
/// `timeoutSeconds`; the descriptor is closed when the value goes away.
public final class RawSocket: @unchecked Sendable {
    public let descriptor: CInt
    private var isClosed = false

    private init(descriptor: CInt, timeoutSeconds: Int) {
        self.descriptor = descriptor
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close() }

    /// Connects to the Unix socket at `path`.
    public static func unix(_ path: String, timeoutSeconds: Int = 30) throws -> RawSocket {
        let descriptor = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallError("socket", path, errno: errno) }
        let raw = RawSocket(descriptor: descriptor, timeoutSeconds: timeoutSeconds)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SystemCallError("connect", path, errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw SystemCallError("connect", path, errno: errno) }
        return raw
    }

    /// Connects to `host:port` over IPv4 from `source` (any port), so that a test on
    /// loopback can come from 127.0.0.2 as another machine would from its own address.
    public static func tcp(
        host: String, port: Int, from source: String? = nil, timeoutSeconds: Int = 30
    ) throws
        -> RawSocket
    {
        let descriptor = socket(AF_INET, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallError("socket", host, errno: errno) }
        let raw = RawSocket(descriptor: descriptor, timeoutSeconds: timeoutSeconds)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw SystemCallError("bind", source, errno: errno) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw SystemCallError("connect", "\(host):\(port)", errno: errno) }
        return raw
    }

    /// Sends all of `bytes`, waiting as the send timeout allows.
    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw SystemCallError("send", "a raw test socket", errno: errno) }
            sent += count
        }
    }

    /// Sends what the socket takes now; returns how many bytes went, or nil once the peer has
    /// closed (EPIPE, ECONNRESET).
    public func sendWithoutWaiting(_ bytes: [UInt8]) -> Int? {
        let count = bytes.withUnsafeBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT))
        }
        if count >= 0 { return count }
        return errno == EAGAIN ? 0 : nil
    }

    /// Closes the sending direction: the peer reads end-of-file.
    public func shutdownWrite() { shutdown(descriptor, CInt(SHUT_WR)) }

    /// Reads until a newline (returned without it) or the end of the stream (returned as
    /// read, `ended` true). A receive timeout throws.
    public func receiveLine(maximumBytes: Int = 1 << 26) throws -> (line: [UInt8], ended: Bool) {
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while line.count < maximumBytes {
            // Peek, then take exactly up to the newline, so a second line stays for the next call.
            let peeked = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, CInt(MSG_PEEK)) }
            if peeked == 0 { return (line, true) }
            guard peeked > 0 else {
                if errno == ECONNRESET { return (line, true) }
                throw SystemCallError("recv", "a raw test socket", errno: errno)
            }
            let newline = buffer[..<peeked].firstIndex(of: UInt8(ascii: "\n"))
            let take = newline.map { $0 + 1 } ?? peeked
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, take, 0) }
            guard count == take else { throw SystemCallError("recv", "a raw test socket", errno: errno) }
            if newline != nil {
                line += buffer[..<(take - 1)]
                return (line, false)
            }
            line += buffer[..<take]
        }
        return (line, false)
    }

    /// Reads until the end of the stream; ECONNRESET counts as the end.
    public func receiveToEnd() throws -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno == ECONNRESET) { return all }
            guard count > 0 else { throw SystemCallError("recv", "a raw test socket", errno: errno) }
            all += buffer[..<count]
        }
    }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }
}
