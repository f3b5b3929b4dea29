/// The `"engine"` object of `status --json`.
public struct EngineReport: Codable, Sendable, Equatable {
    /// inotify events read since start.
    public var events: UInt64
    /// Directories listed since the first crawl finished (new, moved in, recovery, polling).
    public var rescannedDirectories: UInt64
    /// Kernel queue overflows, each followed by a resync.
    public var overflows: UInt64
    /// inotify watches held: one per watched directory.
    public var watches: Int
    /// Subtrees that could not be watched and are polled instead, relative to the root.
    public var degraded: [String]

    enum CodingKeys: String, CodingKey {
        case events, overflows, watches, degraded
        case rescannedDirectories = "rescanned_dirs"
    }

    public init(events: UInt64, rescannedDirectories: UInt64, overflows: UInt64, watches: Int, degraded: [String]) {
        self.events = events
        self.rescannedDirectories = rescannedDirectories
        self.overflows = overflows
        self.watches = watches
        self.degraded = degraded
    }
}

/// `status --json`: the scan shape plus the engine's counters.
public struct StatusReport: Codable, Sendable, Equatable {
    public var root: String
    public var directories: [DirectoryReport]
    public var engine: EngineReport

    public init(tree: TreeReport, engine: EngineReport) {
        root = tree.root
        directories = tree.directories
        self.engine = engine
    }

    public var treeReport: TreeReport { TreeReport(root: root, directories: directories) }
}
