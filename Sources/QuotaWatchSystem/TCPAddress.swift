import Glibc

/// A TCP address to listen on, written as node_exporter's `--web.listen-address` is: a numeric
/// host (`127.0.0.1:9100`, `[::1]:9100`), `localhost:9100` (127.0.0.1, as Go listens for it), or
/// no host (`:9100`) for every address, IPv4 and IPv6. Port 0 asks the kernel for a free port.
package struct TCPAddress: Sendable, Hashable, CustomStringConvertible {
    package enum Family: Sendable, Hashable {
        case ipv4
        case ipv6
    }

    package let family: Family
    /// The host as written, without brackets.
    package let host: String
    package let port: UInt16
    /// The address in network byte order: 4 bytes, or 16.
    let addressBytes: [UInt8]
    /// `:PORT`: IPv6's wildcard taking IPv4 too (a dual-stack socket), or IPv4's where the
    /// machine has no IPv6.
    package let isEveryAddress: Bool

    /// `host:port`, with an IPv6 host in brackets (`[::]:PORT` for every address).
    package var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Why text is not a listening address; the message names the text and the fix.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// Parses `HOST:PORT` with a numeric IPv4 host, a bracketed IPv6 one, `localhost`, or none.
    /// Other host names are refused: which address a name resolves to is a question a daemon
    /// should not leave open.
    package init(parsing text: String) throws(ParseError) {
        var hostText: Substring
        let portText: Substring
        var isEveryAddress = false
        if text.hasPrefix(":") && !text.dropFirst().contains(":") {
            hostText = "::"
            portText = text.dropFirst()
            family = .ipv6
            isEveryAddress = true
        } else if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ParseError(description: "'\(text)' is not [IPV6]:PORT; write it as [::1]:9100")
            }
            hostText = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            family = .ipv6
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw ParseError(
                    description:
                        "'\(text)' has no port; write HOST:PORT, such as 127.0.0.1:9100, or :PORT for every address")
            }
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
            if hostText.contains(":") {
                throw ParseError(description: "'\(text)': put an IPv6 address in brackets, such as [::1]:9100")
            }
            family = .ipv4
            if hostText.lowercased() == "localhost" { hostText = "127.0.0.1" }
        }
        guard portText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let port = UInt16(portText)
        else {
            throw ParseError(description: "'\(text)': the port '\(portText)' is not a number from 0 to 65535")
        }
        var bytes = [UInt8](repeating: 0, count: family == .ipv4 ? 4 : 16)
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        let parsed = unsafe String(hostText).withCString { cText in
            unsafe bytes.withUnsafeMutableBytes { buffer in
                unsafe system_inet_pton(domain, cText, buffer.baseAddress!)
            }
        }
        guard parsed == 1 else {
            let kind = family == .ipv4 ? "a numeric IPv4 address such as 127.0.0.1" : "an IPv6 address such as ::1"
            throw ParseError(
                description: "'\(text)': the host '\(hostText)' is not \(kind) or localhost (other names are not "
                    + "resolved); write :\(port) for every address")
        }
        host = String(hostText)
        self.port = port
        addressBytes = bytes
        self.isEveryAddress = isEveryAddress
    }

    init(family: Family, host: String, port: UInt16, addressBytes: [UInt8], isEveryAddress: Bool = false) {
        self.family = family
        self.host = host
        self.port = port
        self.addressBytes = addressBytes
        self.isEveryAddress = isEveryAddress
    }

    /// The same host with another port.
    func with(port: UInt16) -> TCPAddress {
        TCPAddress(family: family, host: host, port: port, addressBytes: addressBytes, isEveryAddress: isEveryAddress)
    }

    /// IPv4's wildcard on the same port: every address, on a machine without IPv6.
    var everyIPv4Address: TCPAddress {
        TCPAddress(family: .ipv4, host: "0.0.0.0", port: port, addressBytes: [0, 0, 0, 0], isEveryAddress: true)
    }
}
