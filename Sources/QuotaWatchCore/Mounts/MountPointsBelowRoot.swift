/// The mount points below a root, and which of them a new table adds or removes.
package struct MountPointsBelowRoot: Sendable, Equatable {
    /// The root's canonical absolute path.
    package let root: [UInt8]
    /// (mount id, path relative to the root as components) of every mount strictly below it.
    package private(set) var mounts: Set<Mount>

    package struct Mount: Hashable, Sendable {
        package var mountID: UInt64
        package var components: [[UInt8]]
    }

    package init(root: [UInt8], table: [MountEntry]) {
        self.root = root
        mounts = Self.below(root, table)
    }

    /// Takes the new table and returns every place below the root where something is or was
    /// mounted, shallowest first, each once: the ones to look at again. The places whose
    /// mounts differ are not enough: mount ids are reused, so an unmount and a new mount at
    /// the same place between two readings can leave the same line. The caller compares each
    /// place's device and inode with what it knows instead.
    package mutating func update(_ table: [MountEntry]) -> [[[UInt8]]] {
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
    package var places: Set<[[UInt8]]> { Set(mounts.map(\.components)) }

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
