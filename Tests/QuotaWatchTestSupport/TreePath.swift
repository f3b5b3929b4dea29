/// A path inside a ``TempTree`` as raw name components, so that a name may
/// hold any byte but "/" and NUL.
public struct TreePath: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let components: [[UInt8]]

    public init(components: [[UInt8]]) {
        for name in components {
            precondition(
                !name.isEmpty && !name.contains(UInt8(ascii: "/")) && !name.contains(0)
                    && name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")],
                "not a single directory entry name: \(name)"
            )
        }
        self.components = components
    }

    /// Splits `path` on "/"; empty components and "." are dropped.
    public init(_ path: String) {
        self.init(
            components: path.utf8.split(separator: UInt8(ascii: "/")).map(Array.init)
                .filter { $0 != [UInt8(ascii: ".")] }
        )
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The tree's own root.
    public static let root = TreePath(components: [])

    public var isRoot: Bool { components.isEmpty }
    public var depth: Int { components.count }
    public var lastComponent: [UInt8]? { components.last }

    public var parent: TreePath? {
        isRoot ? nil : TreePath(components: Array(components.dropLast()))
    }

    public func appending(_ name: [UInt8]) -> TreePath {
        TreePath(components: components + [name])
    }

    public func appending(_ name: String) -> TreePath {
        appending(Array(name.utf8))
    }

    public func appending(_ other: TreePath) -> TreePath {
        TreePath(components: components + other.components)
    }

    public static func / (lhs: TreePath, rhs: String) -> TreePath { lhs.appending(rhs) }
    public static func / (lhs: TreePath, rhs: [UInt8]) -> TreePath { lhs.appending(rhs) }

    /// True when `self` is `ancestor` or lies below it.
    public func isWithin(_ ancestor: TreePath) -> Bool {
        components.starts(with: ancestor.components)
    }

    /// `self` relative to `ancestor`, or nil when it does not lie within it.
    public func relative(to ancestor: TreePath) -> TreePath? {
        guard isWithin(ancestor) else { return nil }
        return TreePath(components: Array(components.dropFirst(ancestor.depth)))
    }

    /// The components joined with "/"; empty for the root.
    public var bytes: [UInt8] {
        Array(components.joined(separator: [UInt8(ascii: "/")]))
    }

    /// The form `quotawatch scan --json` reports: "." or the escaped path.
    public var reportPath: String {
        ReportPathEscaping.reportPath(relative: bytes)
    }

    public var description: String { reportPath }
}
