import Glibc

/// A minimal HTTP/1.0 client for tests: one request on a fresh loopback connection, read to
/// the end. No dependency on FoundationNetworking, and nothing it does can wait forever: every
/// send and receive gives up after `timeout`.
public enum HTTPGet {
    public struct Response: Sendable, CustomStringConvertible {
        public let status: Int
        /// Header names in lower case.
        public let headers: [String: String]
        public let body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }
        public var description: String { "HTTP \(status) \(headers)\n\(text)" }
    }

    /// Sends `method path` to `host:port` (`host` a numeric IPv4 or IPv6 address).
    public static func request(
        _ method: String = "GET", host: String = "127.0.0.1", port: Int, path: String, timeoutSeconds: Int = 30
    ) throws -> Response {
        let isIPv6 = host.contains(":")
        let descriptor = socket(
            isIPv6 ? AF_INET6 : AF_INET, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallError("socket", host, errno: errno) }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: CInt
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard connected == 0 else { throw SystemCallError("connect", "\(host):\(port)", errno: errno) }
        let request = Array("\(method) \(path) HTTP/1.0\r\nHost: \(host)\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw SystemCallError("send", "\(host):\(port)", errno: errno) }
            sent += count
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw SystemCallError("recv", "\(host):\(port)", errno: errno) }
            reply += buffer[..<count]
        }
        return try parse(reply)
    }

    private static func parse(_ reply: [UInt8]) throws -> Response {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = reply.indices.first(where: { reply[$0...].starts(with: separator) }) else {
            throw SystemCallError("HTTP", "a reply without the end of its headers", errno: EPROTO)
        }
        let head = String(decoding: reply[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw SystemCallError("HTTP", "a bad status line '\(head.first ?? "")'", errno: EPROTO)
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Array(reply[(end + separator.count)...]))
    }
}
