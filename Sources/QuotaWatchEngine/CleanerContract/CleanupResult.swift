import QuotaWatchCore
import QuotaWatchPolicy

/// Why a cleanup run happens. Each is named in the run's summary.
package enum CleanupTrigger: Sendable, Hashable {
    /// A quota directory went above its effective limit: clean it down to its target.
    case breach(path: [UInt8])
    /// The disk level changed.
    case level(from: DiskLevel, to: DiskLevel)
    /// The first start with a new app version (`old` is nil on the very first start).
    case appVersion(old: String?, new: String)
    /// The periodic fallback, at the level in force.
    case periodic(DiskLevel)
    /// A file became a leftover of `rule`.
    case leftover(path: [UInt8], rule: String)
    /// By hand (`clean-now`, the control socket), with the name the caller gave.
    case manual(String)

    /// The trigger's kind as the summary and the audit log write it.
    package var name: String {
        switch self {
        case .breach: "quota_breach"
        case .level: "level"
        case .appVersion: "app_version"
        case .periodic: "periodic"
        case .leftover: "leftover"
        case .manual: "manual"
        }
    }

    /// The trigger as the contract writes it: `kind` and what it names.
    package var contract: ContractTrigger {
        switch self {
        case .breach(let path): .quotaBreach(path: EscapedName.string(path))
        case .level(let from, let to): .level(from: from, to: to)
        case .appVersion(let old, let new): .appVersion(old: old, new: new)
        case .periodic(let level): .periodic(level: level)
        case .leftover(let path, let rule): .leftover(path: EscapedName.string(path), rule: rule)
        case .manual(let label): .manual(name: label)
        }
    }
}

/// One name a cleaner removed (or would remove, in a dry run).
package struct RemovedItem: Sendable, Hashable {
    package var path: [UInt8]
    /// Bytes the cleaned directory's tally drops (what du would drop there).
    package var freedBytes: UInt64
    /// The inode removed, when the cleaner knows it (the built-in ones do): a name made again
    /// at once at the path is another inode, which the run's settling can tell apart.
    package var inode: UInt64?

    package init(path: [UInt8], freedBytes: UInt64, inode: UInt64? = nil) {
        self.path = path
        self.freedBytes = freedBytes
        self.inode = inode
    }
}

/// What a cleaner did.
package struct CleanupResult: Sendable, Hashable {
    package var removed: [RemovedItem]
    /// Names left alone, with the reason (`SkipReason.description`).
    package var skipped: [SkippedItem]
    /// Why the cleaner stopped before its end: the audit log could not record an intent (a
    /// full disk), so nothing more could be removed. The message names the log and the way out.
    package var error: String?
    /// Bytes a cleaner said it freed without naming them per file (a registered cleaner's
    /// `freed`), counted on top of `removed`'s.
    package var unattributedFreedBytes: UInt64 = 0

    package init(removed: [RemovedItem] = [], skipped: [SkippedItem] = [], error: String? = nil) {
        self.removed = removed
        self.skipped = skipped
        self.error = error
    }

    package var freedBytes: UInt64 {
        removed.reduce(unattributedFreedBytes) { Saturating.sum($0, $1.freedBytes) }
    }
}

/// A name a cleaner chose but left, and why.
package struct SkippedItem: Sendable, Hashable {
    package var path: [UInt8]
    package var reason: String

    package init(path: [UInt8], reason: String) {
        self.path = path
        self.reason = reason
    }
}
