/// The roots one daemon serves, as absolute canonical paths: none twice, none inside another,
/// by their paths or through a bind mount (the same directory at another path).
///
/// Nested roots are refused rather than counted in both. A file inside two roots would be
/// under two sets of quotas and cleaners: one root's cleaner could delete what the other's
/// rules protect or did not ask for, and a deletion would be planned and audited twice. Two
/// daemons would also hold one directory's inotify watch between them (the kernel gives one
/// watch per inode per descriptor). Users who want a subtree's own quota give it a quota rule
/// inside the outer root instead.
package enum RootSet {
    /// Two roots that may not be served together.
    package struct Overlap: Sendable, Equatable, CustomStringConvertible {
        package var outer: [UInt8]
        package var inner: [UInt8]
        /// The path above `inner` (or `inner` itself) that leads to `outer`'s directory by
        /// another way (a bind mount of it, or it a bind mount of that); nil when the paths
        /// alone show the overlap.
        package var mountedAt: [UInt8]? = nil

        package var description: String {
            let refused =
                "nested roots are refused (a file in both would be under two sets of quotas and cleaners): "
                + "drop one, or give the inner directory a quota rule in the outer root's config"
            switch mountedAt {
            case nil where outer == inner:
                return "the root \(EscapedName.string(outer)) is given twice"
            case nil:
                return "the root \(EscapedName.string(inner)) is inside the root \(EscapedName.string(outer)); "
                    + refused
            case let mount? where mount == inner:
                return "the roots \(EscapedName.string(outer)) and \(EscapedName.string(inner)) are one directory "
                    + "(a bind mount); drop one"
            case let mount?:
                return "the root \(EscapedName.string(inner)) is inside the root \(EscapedName.string(outer)): "
                    + "\(EscapedName.string(mount)) and \(EscapedName.string(outer)) are one directory (a bind mount); "
                    + refused
            }
        }
    }

    /// ``firstOverlap(_:)``, then the same directory reached by two roots' paths: a root that
    /// is another's directory, or lies below it, through a bind mount. `identity` stats a path
    /// (nil when it cannot be stat'ed); each root's path and each directory above it is
    /// looked up once, O(roots × depth).
    package static func firstOverlap(
        _ roots: [[UInt8]], identity: ([UInt8]) -> DirectoryIdentity?
    ) -> Overlap? {
        if let overlap = firstOverlap(roots) { return overlap }
        var rootByIdentity: [DirectoryIdentity: [UInt8]] = [:]
        for root in roots {
            if let found = identity(root) { rootByIdentity[found] = rootByIdentity[found] ?? root }
        }
        for inner in roots {
            var path = inner
            while true {
                if let found = identity(path), let outer = rootByIdentity[found], outer != inner {
                    return Overlap(outer: outer, inner: inner, mountedAt: path)
                }
                guard let parent = parentPath(of: path) else { break }
                path = parent
            }
        }
        return nil
    }

    /// `/a/b` → `/a`, `/a` → `/`, `/` → nil.
    private static func parentPath(of path: [UInt8]) -> [UInt8]? {
        let slash = UInt8(ascii: "/")
        guard path.count > 1, let last = path.lastIndex(of: slash) else { return nil }
        return last == 0 ? [slash] : Array(path[..<last])
    }

    /// The first pair of `roots` (absolute paths with no `.` or `..` components) where one is
    /// the other or lies inside it; nil when they are apart. O(n log n): sorted component by
    /// component, a root's descendants come right after it (`/a`, `/a/c`, `/a-b`), so only
    /// neighbours need comparing.
    package static func firstOverlap(_ roots: [[UInt8]]) -> Overlap? {
        let slash = UInt8(ascii: "/")
        let sorted = roots.map { $0.split(separator: slash).map(Array.init) }
            .sorted { $0.lexicographicallyPrecedes($1) { $0.lexicographicallyPrecedes($1) } }
        for (outer, inner) in zip(sorted, sorted.dropFirst()) where inner.starts(with: outer) {
            func path(_ components: [[UInt8]]) -> [UInt8] { [slash] + Array(components.joined(separator: [slash])) }
            return Overlap(outer: path(outer), inner: path(inner))
        }
        return nil
    }
}
