/// How full the disk is, from best to worst.
public enum DiskLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    case normal
    case warning
    case critical

    var rank: Int {
        switch self {
        case .normal: 0
        case .warning: 1
        case .critical: 2
        }
    }

    public static func < (lhs: DiskLevel, rhs: DiskLevel) -> Bool { lhs.rank < rhs.rank }
}

/// A free-space threshold: an absolute size, or a share of the filesystem's total size.
public enum SpaceThreshold: Sendable, Hashable, CustomStringConvertible {
    case bytes(UInt64)
    /// A fraction from 0 to 1 ("10%" is 0.1).
    case share(Double)

    public func bytes(ofTotal total: UInt64) -> UInt64 {
        switch self {
        case .bytes(let bytes): bytes
        case .share(let share): scaled(total, by: share)
        }
    }

    public var description: String {
        switch self {
        case .bytes(let bytes): SizeText.exact(bytes)
        case .share(let share): ShareText.format(share)
        }
    }
}
