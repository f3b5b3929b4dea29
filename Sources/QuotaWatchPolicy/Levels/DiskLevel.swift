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

/// A value for each level.
public struct PerLevel<Value: Sendable & Hashable>: Sendable, Hashable {
    public var normal: Value
    public var warning: Value
    public var critical: Value

    public init(normal: Value, warning: Value, critical: Value) {
        self.normal = normal
        self.warning = warning
        self.critical = critical
    }

    public subscript(level: DiskLevel) -> Value {
        get {
            switch level {
            case .normal: normal
            case .warning: warning
            case .critical: critical
            }
        }
        set {
            switch level {
            case .normal: normal = newValue
            case .warning: warning = newValue
            case .critical: critical = newValue
            }
        }
    }
}
