import Glibc

/// A numeric TCP address to listen on: `127.0.0.1:9100` or `[::1]:9100`. Port 0 asks the
/// kernel for a free port.
public struct TCPAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable {
        case ipv4
        case ipv6
    }

    public let family: Family
    /// The host as written, without brackets.
    public let host: String
    public let port: UInt16
    /// The address in network byte order: 4 bytes, or 16.
    let addressBytes: [UInt8]

    /// `host:port`, with an IPv6 host in brackets.
    public var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Why text is not a listening address; the message names the text and the fix.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `HOST:PORT` with a numeric IPv4 host or a bracketed IPv6 one. Host names are
    /// refused: which address a name resolves to is a question a daemon should not leave open.
    public init(parsing text: String) throws(ParseError) {
        let hostText: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ParseError(description: "'\(text)' is not [IPV6]:PORT; write it as [::1]:9100")
            }
            hostText = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            family = .ipv6
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw ParseError(description: "'\(text)' has no port; write HOST:PORT, such as 127.0.0.1:9100")
            }
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
            if hostText.contains(":") {
                throw ParseError(description: "'\(text)': put an IPv6 address in brackets, such as [::1]:9100")
            }
            family = .ipv4
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
            throw ParseError(description: "'\(text)': the host '\(hostText)' is not \(kind) (names are not resolved)")
        }
        host = String(hostText)
        self.port = port
        addressBytes = bytes
    }

    init(family: Family, host: String, port: UInt16, addressBytes: [UInt8]) {
        self.family = family
        self.host = host
        self.port = port
        self.addressBytes = addressBytes
    }

    /// The same host with another port.
    func with(port: UInt16) -> TCPAddress {
        TCPAddress(family: family, host: host, port: port, addressBytes: addressBytes)
    }
}
