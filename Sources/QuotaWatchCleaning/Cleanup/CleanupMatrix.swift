import QuotaWatchEngine
import QuotaWatchPolicy

/// Which configured cleaner a trigger calls, and over what: the one table every plan is built
/// from (docs/cleaning.md prints it). A trigger cleans only what it concerns:
///
/// | cleaner \ trigger | `quota_breach` | `leftover` | `level`, `periodic`, `app_version` | `manual` (`clean-now`) |
/// |---|---|---|---|---|
/// | `leftovers` | reported leftovers inside the directory | the file it names | every reported leftover | every reported leftover |
/// | `evict` | the directory, down to its target | — | each quota directory over its effective limit | each quota directory in `warning` or `breach` |
/// | `webkit-trim` | trimmed directories inside it over their limit | — | each one over its limit | each one over its limit |
/// | `expire` | expired files inside it | — | every expired file | every expired file |
/// | `command` | with the directory | — | with no directory | with no directory |
/// | `registered` | those whose paths concern it | those whose paths hold the file | every one with a path in the tree | every one with a path in the tree |
///
/// Every cleaner after the first sees what the ones before it removed (``CleanupPlan/settle(_:after:)``):
/// a directory brought to its target is not offered to the next cleaner at all.
enum CleanupMatrix {
    /// Which quota directories eviction takes outside a breach.
    enum EvictionLine: Equatable {
        /// Those over their effective limit (a level that lowered the limit below their use).
        case overLimit
        /// Those in `warning` or `breach`: `clean-now` (and `watch`'s `c`) asks for it by hand, and
        /// its question lists exactly these.
        case pastWarning
    }

    /// Whether `trigger` calls `cleaner` at all. Where it does, the trigger sets the scope: a
    /// breach its directory's subtree, a leftover its one file, the others the whole tree.
    static func calls(_ cleaner: CleanerSpec, for trigger: CleanupTrigger) -> Bool {
        guard case .leftover = trigger else { return true }
        // The leftover rule asked for that file, and for nothing else.
        switch cleaner {
        case .leftovers, .registered: return true
        case .evict, .trim, .expire, .command: return false
        }
    }

    static func evictionLine(for trigger: CleanupTrigger) -> EvictionLine {
        if case .manual = trigger { return .pastWarning }
        return .overLimit
    }
}
