/// What makes a matching file or directory a leftover.
package enum LeftoverKind: Sendable, Hashable {
    /// A file not written for `age` and not open for writing by any process.
    case idleFile(age: Duration)
    /// Of the entries matching the rule in one directory, all but the newest `keep`.
    case keepNewest(keep: Int)
    /// A file last modified more than `age` ago.
    case olderThan(age: Duration)
    /// A directory whose allocated total is above `limit`.
    case directoryOver(limit: UInt64)

    /// The name used in the config's `kind:` key.
    package var name: String {
        switch self {
        case .idleFile: "idle-file"
        case .keepNewest: "keep-newest"
        case .olderThan: "older-than"
        case .directoryOver: "directory-over"
        }
    }

    package static let names = ["idle-file", "keep-newest", "older-than", "directory-over"]
}

/// A named leftover rule: which paths it looks at and what makes one a leftover.
package struct LeftoverRule: Sendable, Hashable {
    package var name: String
    /// Globs relative to ROOT; a path matching any of them is a candidate.
    package var paths: [PathGlob]
    package var kind: LeftoverKind
    /// Report only: the cleaners never delete what this rule finds.
    package var protect: Bool

    package init(name: String, paths: [PathGlob], kind: LeftoverKind, protect: Bool = false) {
        self.name = name
        self.paths = paths
        self.kind = kind
        self.protect = protect
    }

    package func matches(_ path: some Collection<UInt8>) -> Bool {
        let bytes = Array(path)
        return paths.contains { $0.matches(bytes) }
    }
}
