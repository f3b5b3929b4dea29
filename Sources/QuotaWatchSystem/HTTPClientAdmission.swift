import Synchronization

/// Which new connections the HTTP server takes, so that a new client is always served: a few
/// addresses holding many connections (half-sent requests kept alive a byte at a time) can
/// fill the shared slots, never the reserve. The last ``HTTPServer/Limits/reserve`` slots go
/// only to an address that holds no connection yet, so it takes that many other addresses to
/// fill them, and a scraper elsewhere finds one free.
///
/// Counts connections by address (the client's IP, not its port): ``admits(_:)`` decides, and
/// ``opened(_:)`` and ``closed(_:)`` follow what the server really holds.
package final class HTTPClientAdmission: Sendable {
    package let limits: HTTPServer.Limits
    private let held = Mutex<[[UInt8]: Int]>([:])

    package init(limits: HTTPServer.Limits) { self.limits = limits }

    /// Whether a new connection from `address` is taken now.
    package func admits(_ address: [UInt8]) -> Bool {
        held.withLock { held in
            let total = held.values.reduce(0, +)
            let fromAddress = held[address] ?? 0
            guard total < limits.connections, fromAddress < limits.connectionsPerAddress else { return false }
            return total < limits.connections - limits.reserve || fromAddress == 0
        }
    }

    /// A connection from `address` was taken.
    package func opened(_ address: [UInt8]) {
        held.withLock { $0[address, default: 0] += 1 }
    }

    /// A connection from `address` was closed.
    package func closed(_ address: [UInt8]) {
        held.withLock { held in
            guard let count = held[address] else { return }
            held[address] = count > 1 ? count - 1 : nil
        }
    }

    /// Connections held now, from every address.
    package var total: Int { held.withLock { $0.values.reduce(0, +) } }
}
