/// How full the disk is, from best to worst. The raw values are the JSON strings of the
/// contract (`level` events, `status --quotas`).
package enum DiskLevel: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    case normal
    case warning
    case critical

    private var rank: Int {
        switch self {
        case .normal: 0
        case .warning: 1
        case .critical: 2
        }
    }

    package static func < (lhs: DiskLevel, rhs: DiskLevel) -> Bool { lhs.rank < rhs.rank }
}
