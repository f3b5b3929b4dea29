/// The roots one daemon serves, as absolute canonical paths: none twice, none inside another.
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

        package var description: String {
            outer == inner
                ? "the root \(EscapedName.string(outer)) is given twice"
                : "the root \(EscapedName.string(inner)) is inside the root \(EscapedName.string(outer)); "
                    + "nested roots are refused (a file in both would be under two sets of quotas and cleaners): "
                    + "drop one, or give the inner directory a quota rule in the outer root's config"
        }
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
