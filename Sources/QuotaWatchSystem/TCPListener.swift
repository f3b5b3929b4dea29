import Glibc

/// A TCP socket bound and listening, close-on-exec. A plain value: whoever makes one closes it
/// (or hands it to a server that does).
package struct TCPListener: Sendable {
    package let descriptor: FileDescriptor
    /// The address bound, with the port the kernel chose when 0 was asked for.
    package let address: TCPAddress

    /// Binds `address` and listens. `SO_REUSEADDR` lets a restarted daemon bind again at once;
    /// an IPv6 socket is IPv6 only, so `[::]` does not also take the IPv4 port, except for every
    /// address (`:PORT`): one dual-stack socket on `[::]` takes both, as Go's listeners do, or,
    /// where the machine has no IPv6, `0.0.0.0` (the listener's address says which).
    ///
    /// The corresponding C functions are `socket`, `setsockopt`, `bind`, `listen` and
    /// `getsockname`.
    package static func listen(on address: TCPAddress, backlog: CInt = 64) throws(Errno) -> TCPListener {
        guard address.isEveryAddress, address.family == .ipv6 else { return try bind(address, backlog: backlog) }
        do {
            return try bind(address, backlog: backlog)
        } catch .addressFamilyNotSupported, .addressNotAvailable {
            return try bind(address.everyIPv4Address, backlog: backlog)
        }
    }

    private static func bind(_ address: TCPAddress, backlog: CInt) throws(Errno) -> TCPListener {
        let domain = address.family == .ipv4 ? AF_INET : AF_INET6
        let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
        let descriptor = FileDescriptor(rawValue: try valueOrErrno { system_socket(domain, type, 0) }.get())
        do throws(Errno) {
            try setOption(descriptor, SOL_SOCKET, SO_REUSEADDR, 1)
            if address.family == .ipv6 {
                try setOption(descriptor, CInt(IPPROTO_IPV6), IPV6_V6ONLY, address.isEveryAddress ? 0 : 1)
            }
            try unsafe withSocketAddress(address) { pointer, length throws(Errno) in
                _ = try valueOrErrno { unsafe system_bind(descriptor.rawValue, pointer, length) }.get()
            }
            _ = try valueOrErrno { system_listen(descriptor.rawValue, backlog) }.get()
            return TCPListener(descriptor: descriptor, address: address.with(port: try boundPort(descriptor)))
        } catch {
            descriptor.close()
            throw error
        }
    }

    private static func setOption(
        _ descriptor: FileDescriptor, _ level: CInt, _ option: CInt, _ value: CInt
    )
        throws(Errno)
    {
        var value = value
        _ = try valueOrErrno {
            unsafe system_setsockopt(descriptor.rawValue, level, option, &value, socklen_t(MemoryLayout<CInt>.size))
        }.get()
    }

    private static func boundPort(_ descriptor: FileDescriptor) throws(Errno) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try unsafe withUnsafeMutablePointer(to: &storage) { pointer throws(Errno) in
            try unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(Errno) in
                _ = try valueOrErrno { unsafe system_getsockname(descriptor.rawValue, generic, &length) }.get()
            }
        }
        // sin_port and sin6_port sit at the same offset, right after the family.
        let port = unsafe withUnsafeBytes(of: &storage) { bytes in
            unsafe UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        }
        return port
    }

    /// Calls `body` with a `sockaddr_in` or `sockaddr_in6` for `address`.
    private static func withSocketAddress(
        _ address: TCPAddress, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Errno) -> Void
    ) throws(Errno) {
        let port = address.port.bigEndian
        switch address.family {
        case .ipv4:
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port
            unsafe withUnsafeMutableBytes(of: &socketAddress.sin_addr) {
                unsafe $0.copyBytes(from: address.addressBytes)
            }
            try unsafe withUnsafePointer(to: &socketAddress) { pointer throws(Errno) in
                try unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(Errno) in
                    try unsafe body(generic, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port
            unsafe withUnsafeMutableBytes(of: &socketAddress.sin6_addr) {
                unsafe $0.copyBytes(from: address.addressBytes)
            }
            try unsafe withUnsafePointer(to: &socketAddress) { pointer throws(Errno) in
                try unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(Errno) in
                    try unsafe body(generic, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
