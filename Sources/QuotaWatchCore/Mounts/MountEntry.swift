/// One line of `/proc/self/mountinfo`: which mount, and where it is attached.
public struct MountEntry: Hashable, Sendable {
    /// The mount's id, unique while it is mounted.
    public var mountID: UInt64
    /// Where it is mounted, absolute, as raw bytes (the kernel's octal escapes undone).
    public var mountPoint: [UInt8]

    public init(mountID: UInt64, mountPoint: [UInt8]) {
        self.mountID = mountID
        self.mountPoint = mountPoint
    }

    /// Every well-formed line of a `mountinfo` file; a line that is not is skipped.
    public static func parse(mountinfo bytes: [UInt8]) -> [MountEntry] {
        var entries: [MountEntry] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, let mountID = decimal(fields[0]) else { continue }
            entries.append(MountEntry(mountID: mountID, mountPoint: unescaped(fields[4])))
        }
        return entries
    }

    private static func decimal(_ field: ArraySlice<UInt8>) -> UInt64? {
        guard !field.isEmpty, field.count <= 19 else { return nil }
        var value: UInt64 = 0
        for byte in field {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The kernel writes space, tab, newline and backslash in a path as `\ooo`.
    private static func unescaped(_ field: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(field.count)
        var index = field.startIndex
        while index < field.endIndex {
            let byte = field[index]
            if byte == UInt8(ascii: "\\"), field.endIndex - index >= 4 {
                let digits = field[(index + 1)...(index + 3)]
                if digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }) {
                    let value = digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
                    if value <= 0xFF {
                        result.append(UInt8(value))
                        index += 4
                        continue
                    }
                }
            }
            result.append(byte)
            index += 1
        }
        return result
    }
}

/// The mount points below a root, and which of them a new table adds or removes.
public struct MountPointsBelowRoot: Sendable, Equatable {
    /// The root's canonical absolute path.
    public let root: [UInt8]
    /// (mount id, path relative to the root as components) of every mount strictly below it.
    public private(set) var mounts: Set<Mount>

    public struct Mount: Hashable, Sendable {
        public var mountID: UInt64
        public var components: [[UInt8]]
    }

    public init(root: [UInt8], table: [MountEntry]) {
        self.root = root
        mounts = Self.below(root, table)
    }

    /// Takes the new table and returns every place below the root where something is or was
    /// mounted, shallowest first, each once: the ones to look at again. The places whose
    /// mounts differ are not enough: mount ids are reused, so an unmount and a new mount at
    /// the same place between two readings can leave the same line. The caller compares each
    /// place's device and inode with what it knows instead.
    public mutating func update(_ table: [MountEntry]) -> [[[UInt8]]] {
        let fresh = Self.below(root, table)
        let places = Set(mounts.map(\.components)).union(fresh.map(\.components))
        mounts = fresh
        return places.sorted { first, second in
            first.count != second.count
                ? first.count < second.count
                : first.lexicographicallyPrecedes(second) { $0.lexicographicallyPrecedes($1) }
        }
    }

    /// Every place below the root where something is mounted now.
    public var places: Set<[[UInt8]]> { Set(mounts.map(\.components)) }

    private static func below(_ root: [UInt8], _ table: [MountEntry]) -> Set<Mount> {
        var result: Set<Mount> = []
        let slash = UInt8(ascii: "/")
        let prefix = root.last == slash ? root : root + [slash]
        for entry in table where entry.mountPoint.count > prefix.count && entry.mountPoint.starts(with: prefix) {
            let rest = entry.mountPoint[prefix.count...]
            let components = rest.split(separator: slash).map { Array($0) }
            guard !components.isEmpty else { continue }
            result.insert(Mount(mountID: entry.mountID, components: components))
        }
        return result
    }
}
