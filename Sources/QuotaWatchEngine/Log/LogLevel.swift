import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// How much the daemon says on standard error. The values are syslog's priorities, which is
/// what journald reads from a `<N>` prefix.
package enum LogLevel: Int, Sendable, CaseIterable, Comparable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    package var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    package init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    /// Lower is more severe, as in syslog: `.error < .warning`.
    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
