import CMicroHTTPD
import Glibc

/// A one-page HTTP server on libmicrohttpd (Debian's libmicrohttpd-dev): `GET` or `HEAD` of
/// `path` answers 200 with what `body` returns; any other path is 404, any other method 405.
///
/// libmicrohttpd runs its own polling thread, which calls `body` for each request; `body`
/// must be safe to call from it and must not wait for the engine. Nothing else of
/// libmicrohttpd leaves this file.
///
/// Unchecked: the daemon handle is a C pointer, which is never Sendable; libmicrohttpd is
/// thread-safe for what is called here, and ``stop()`` is called once, by the owner.
@safe package final class HTTPServer: @unchecked Sendable {
    /// Why the server could not start.
    package struct StartError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// What bounds the clients of a port that may be reachable from the network, so that
    /// half-sent requests or idle connections, renewed as often as they like, cannot keep a
    /// scrape from being answered.
    package struct Limits: Sendable {
        /// Connections served at once; more wait in the listen backlog.
        package var connections: Int
        /// Connections from one address at once; more are closed as soon as they are accepted.
        package var connectionsPerAddress: Int
        /// The last slots, kept for addresses that hold no connection yet
        /// (``HTTPClientAdmission``): one or two addresses, or a few, cannot take them all, so a
        /// scraper from elsewhere is served whatever they hold.
        package var reserve: Int
        /// A connection that sends nothing (a request left half-sent, an idle keep-alive) for
        /// this long is closed. A Prometheus scrape is one request answered at once.
        package var idleSeconds: Int

        package init(connections: Int, connectionsPerAddress: Int, reserve: Int, idleSeconds: Int) {
            self.connections = connections
            self.connectionsPerAddress = connectionsPerAddress
            self.reserve = reserve
            self.idleSeconds = idleSeconds
        }
    }

    /// 96 shared slots, 64 to an address (two addresses fill them), and 32 kept, one to an
    /// address: filling every slot takes 34 addresses.
    package static let limits = Limits(connections: 128, connectionsPerAddress: 64, reserve: 32, idleSeconds: 5)

    private let daemon: OpaquePointer
    private let page: Unmanaged<HTTPServerPage>
    private let admission: Unmanaged<HTTPClientAdmission>
    private var stopped = false
    package let address: TCPAddress

    /// Serves on `listener`, which the server takes over: ``stop()`` closes it, and so does a
    /// start that fails.
    package init(
        listener: TCPListener, path: String, contentType: String, body: @escaping @Sendable () -> [UInt8]
    ) throws(StartError) {
        let page = unsafe Unmanaged.passRetained(HTTPServerPage(path: path, contentType: contentType, body: body))
        let admission = unsafe Unmanaged.passRetained(HTTPClientAdmission(limits: Self.limits))
        // One thread waits on epoll for every connection: a client that stalls holds a
        // connection slot and its 32 KiB, never a thread.
        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue
        if listener.address.family == .ipv6 { flags |= MHD_USE_IPv6.rawValue }
        let options: [any CVarArg] = unsafe [
            option(.LISTEN_SOCKET), listener.descriptor.rawValue,
            option(.CONNECTION_TIMEOUT), CUnsignedInt(Self.limits.idleSeconds),
            option(.CONNECTION_LIMIT), CUnsignedInt(Self.limits.connections),
            option(.PER_IP_CONNECTION_LIMIT), CUnsignedInt(Self.limits.connectionsPerAddress),
            option(.NOTIFY_CONNECTION),
            unsafe unsafeBitCast(
                notifyConnection as MHD_NotifyConnectionCallback, to: OpaquePointer.self),
            unsafe OpaquePointer(admission.toOpaque()),
            option(.END),
        ]
        let started = unsafe withVaList(options) { arguments in
            unsafe MHD_start_daemon_va(
                flags, 0, admitConnection, admission.toOpaque(), handleRequest, page.toOpaque(), arguments)
        }
        guard let started = unsafe started else {
            unsafe page.release()
            unsafe admission.release()
            listener.descriptor.close()
            throw StartError(description: "libmicrohttpd could not start serving on \(listener.address)")
        }
        unsafe daemon = started
        unsafe self.page = page
        unsafe self.admission = admission
        address = listener.address
    }

    /// Stops serving: waits for the polling thread, closes the socket and every connection.
    package func stop() {
        guard !stopped else { return }
        stopped = true
        unsafe MHD_stop_daemon(daemon)
        unsafe page.release()
        unsafe admission.release()
    }

    deinit { stop() }
}

/// An option's number as `MHD_start_daemon`'s variable arguments read it: an `int`.
private func option(_ option: MHD_OPTION) -> CInt { CInt(truncatingIfNeeded: option.rawValue) }

/// libmicrohttpd's accept policy: whether a connection just accepted from `address` is kept.
private func admitConnection(
    _ context: UnsafeMutableRawPointer?, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t
) -> MHD_Result {
    guard let context = unsafe context else { return .YES }
    let admission = unsafe Unmanaged<HTTPClientAdmission>.fromOpaque(context).takeUnretainedValue()
    return admission.admits(unsafe clientKey(address)) ? .YES : .NO
}

/// libmicrohttpd's connection notifications: what ``HTTPClientAdmission`` counts.
private func notifyConnection(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let context = unsafe context, let connection = unsafe connection else { return }
    let admission = unsafe Unmanaged<HTTPClientAdmission>.fromOpaque(context).takeUnretainedValue()
    let key = unsafe clientKey(quotawatch_mhd_client_address(connection))
    // MHD_CONNECTION_NOTIFY_STARTED and MHD_CONNECTION_NOTIFY_CLOSED.
    switch code.rawValue {
    case 0: admission.opened(key)
    case 1: admission.closed(key)
    default: break
    }
}

/// The client's IP address as bytes (the family first), without its port: what connections
/// are counted by.
private func clientKey(_ address: UnsafePointer<sockaddr>?) -> [UInt8] {
    guard let address = unsafe address else { return [] }
    switch CInt(unsafe address.pointee.sa_family) {
    case AF_INET:
        return unsafe address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
            var bytes = unsafe inet.pointee.sin_addr
            let address = unsafe withUnsafeBytes(of: &bytes) { unsafe Array($0) }
            return [4] + address
        }
    case AF_INET6:
        return unsafe address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
            var bytes = unsafe inet6.pointee.sin6_addr
            let address = unsafe withUnsafeBytes(of: &bytes) { unsafe Array($0) }
            return [6] + address
        }
    default:
        return []
    }
}

/// What the request handler needs, kept alive for the server's life by an unmanaged
/// reference that ``HTTPServer/stop()`` releases.
private final class HTTPServerPage: Sendable {
    let path: String
    let contentType: String
    let body: @Sendable () -> [UInt8]

    init(path: String, contentType: String, body: @escaping @Sendable () -> [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.body = body
    }
}

/// libmicrohttpd's access handler: called on its thread once the request's headers are in.
/// A `GET` or `HEAD` has no body, so the first call answers.
private func handleRequest(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context = unsafe context, let url = unsafe url, let method = unsafe method else { return .NO }
    let page = unsafe Unmanaged<HTTPServerPage>.fromOpaque(context).takeUnretainedValue()
    let methodText = unsafe String(cString: method)
    guard methodText == "GET" || methodText == "HEAD" else {
        return unsafe respond(
            connection, status: 405, body: Array("only GET and HEAD\n".utf8),
            headers: [
                ("Allow", "GET, HEAD"), ("Content-Type", "text/plain; charset=utf-8"),
            ])
    }
    guard unsafe String(cString: url) == page.path else {
        return unsafe respond(
            connection, status: 404, body: Array("not found; the metrics are at \(page.path)\n".utf8),
            headers: [("Content-Type", "text/plain; charset=utf-8")])
    }
    return unsafe respond(connection, status: 200, body: page.body(), headers: [("Content-Type", page.contentType)])
}

private func respond(
    _ connection: OpaquePointer?, status: UInt32, body: [UInt8], headers: [(String, String)]
) -> MHD_Result {
    let response = unsafe body.withUnsafeBytes { bytes in
        unsafe MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let response = unsafe response else { return .NO }
    defer { unsafe MHD_destroy_response(response) }
    for (name, value) in headers { _ = unsafe MHD_add_response_header(response, name, value) }
    return unsafe MHD_queue_response(connection, status, response)
}
