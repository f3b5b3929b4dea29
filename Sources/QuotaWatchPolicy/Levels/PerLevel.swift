import QuotaWatchCore

/// A value for each level.
package struct PerLevel<Value: Sendable & Hashable>: Sendable, Hashable {
    package var normal: Value
    package var warning: Value
    package var critical: Value

    package init(normal: Value, warning: Value, critical: Value) {
        self.normal = normal
        self.warning = warning
        self.critical = critical
    }

    package subscript(level: DiskLevel) -> Value {
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
