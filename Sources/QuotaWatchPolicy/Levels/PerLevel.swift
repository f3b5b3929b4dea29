import QuotaWatchCore

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
