/// What the deleter must never remove, as one predicate over paths relative to ROOT:
///
/// - anything matching a protected glob, or below a match (a protected directory protects
///   its whole subtree): the quota rules and leftover rules marked `protect: true`, and any
///   extra globs given;
/// - `Documents` and everything under it, the user's own files, except what the
///   `documents-inbox` leftover rule matches (and what lies below a match).
package struct CleanupProtection: Sendable {
    package var protectedGlobs: [PathGlob]
    /// Paths under `Documents/` that may still be cleaned.
    package var documentsExceptions: [PathGlob]

    package init(protectedGlobs: [PathGlob], documentsExceptions: [PathGlob]) {
        self.protectedGlobs = protectedGlobs
        self.documentsExceptions = documentsExceptions
    }

    /// The protection a configuration puts in force, with `extraGlobs` added.
    package init(config: PolicyConfig, profileApplies: Bool, extraGlobs: [PathGlob] = []) {
        let leftovers = config.effectiveLeftoverRules(profileApplies: profileApplies)
        protectedGlobs =
            extraGlobs + config.quotas.filter(\.thresholds.protect).map(\.glob)
            + config.budgets.filter(\.thresholds.protect).map(\.glob)
            + leftovers.filter(\.protect).flatMap(\.paths)
        documentsExceptions = leftovers.filter { $0.name == "documents-inbox" && !$0.protect }.flatMap(\.paths)
    }

    package static let documents: [UInt8] = Array("Documents".utf8)

    package func isProtected(_ path: [UInt8]) -> Bool {
        let prefixes = Self.selfAndAncestors(path)
        if prefixes.contains(where: { prefix in protectedGlobs.contains { $0.matches(prefix) } }) { return true }
        guard prefixes.first == Self.documents else { return false }
        return !prefixes.contains { prefix in documentsExceptions.contains { $0.matches(prefix) } }
    }

    /// As ``isProtected(_:)``, except that a file the user selected by hand (`quotawatch clean`
    /// with `--kind`, `--path` or a mark on the page) is not held back by the `Documents/`
    /// rule; the protect globs still hold it.
    package func isProtected(_ path: [UInt8], userSelected: Bool) -> Bool {
        guard userSelected else { return isProtected(path) }
        return Self.selfAndAncestors(path).contains { prefix in protectedGlobs.contains { $0.matches(prefix) } }
    }

    /// `a`, `a/b`, `a/b/c` for `a/b/c`: the path and each directory above it, top first.
    static func selfAndAncestors(_ path: [UInt8]) -> [[UInt8]] {
        var prefixes: [[UInt8]] = []
        var current: [UInt8] = []
        for component in path.split(separator: UInt8(ascii: "/")) {
            current += current.isEmpty ? Array(component) : [UInt8(ascii: "/")] + component
            prefixes.append(current)
        }
        return prefixes
    }
}
