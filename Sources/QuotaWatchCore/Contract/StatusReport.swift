import Foundation

/// The `"engine"` object of `status --json`.
package struct EngineReport: Codable, Sendable, Equatable {
    /// inotify events read since start.
    package var events: UInt64
    /// Directories listed since the first crawl finished (new, moved in, recovery, polling).
    package var rescannedDirectories: UInt64
    /// Kernel queue overflows, each followed by a resync.
    package var overflows: UInt64
    /// The directories the backend reports on: inotify's watches, one per watched directory,
    /// or under fanotify, which holds no watch, `directories` (its JSON leaves `watches` out:
    /// `marks` and `directories` say what it holds). Readers that want one figure whatever the
    /// backend (the metrics' `quotawatch_watches`) read this.
    package var watches: Int {
        get { inotifyWatches ?? directories ?? 0 }
        set { inotifyWatches = newValue }
    }
    /// `watches` as the JSON has it: absent under fanotify.
    private var inotifyWatches: Int?
    /// fanotify: filesystem marks held, one per file system the tree spans; nil under inotify.
    package var marks: Int?
    /// fanotify: directories in its handle table (what inotify would hold a watch for each
    /// of); nil under inotify.
    package var directories: Int?
    /// Subtrees that could not be watched and are polled instead, relative to the root.
    package var degraded: [String]
    /// Control requests the engine has answered, this one included.
    package var requests: UInt64
    /// CPU time the engine thread has used since start, in seconds, read as this reply was
    /// made: the difference over many requests to an idle daemon is what each one cost it.
    package var cpuSeconds: Double
    /// "inotify" or "fanotify"; nil from a daemon that predates the choice.
    package var backend: String?
    /// Why that backend (`--backend`, or what `auto` found).
    package var backendReason: String?
    /// Directories the daemon cannot read, with why: what is inside them is not counted, so
    /// the totals above them are short. Absent when there are none (and from older daemons).
    package var unreadable: [UnreadableDirectory]?
    /// The background verification sweep; absent when it is off (and from older daemons).
    package var verification: VerificationReport?

    enum CodingKeys: String, CodingKey {
        case events, overflows, degraded, requests, backend, unreadable, verification, marks, directories
        case inotifyWatches = "watches"
        case backendReason = "backend_reason"
        case rescannedDirectories = "rescanned_dirs"
        case cpuSeconds = "cpu_seconds"
    }

    package init(
        events: UInt64, rescannedDirectories: UInt64, overflows: UInt64, watches: Int, degraded: [String],
        requests: UInt64 = 0, cpuSeconds: Double = 0, backend: String? = nil, backendReason: String? = nil,
        unreadable: [UnreadableDirectory]? = nil, verification: VerificationReport? = nil,
        fanotify: (marks: Int, directories: Int)? = nil
    ) {
        inotifyWatches = fanotify == nil ? watches : nil
        marks = fanotify?.marks
        directories = fanotify?.directories
        self.unreadable = unreadable
        self.verification = verification
        self.backend = backend
        self.backendReason = backendReason
        self.events = events
        self.rescannedDirectories = rescannedDirectories
        self.overflows = overflows
        self.degraded = degraded
        self.requests = requests
        self.cpuSeconds = cpuSeconds
    }
}

/// A directory the engine cannot read (the `unreadable` entries of the engine report).
package struct UnreadableDirectory: Codable, Sendable, Equatable {
    /// Relative to the root, escaped as reports write paths.
    package var path: String
    package var reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// Why the engine cannot read one: it only ever marks a directory unreadable for a
    /// permission (EACCES on open, or listing without search permission).
    package static let permissionReason = "permission denied: what is inside is not counted"
}

/// `status --json`: the scan shape plus the engine's counters.
package struct StatusReport: Codable, Sendable, Equatable {
    package var root: String
    package var directories: [DirectoryReport]
    package var engine: EngineReport
    /// The largest files directly in the selected directory, largest first, when the request
    /// asked for them (the control protocol's `files`); absent otherwise. Each row has the
    /// directories' shape: its path relative to the root, its inode's sizes, `files` 1, `dirs` 0.
    package var files: [DirectoryReport]?

    package init(tree: TreeReport, engine: EngineReport, files: [DirectoryReport]? = nil) {
        root = tree.root
        directories = tree.directories
        self.engine = engine
        self.files = files
    }

    package var treeReport: TreeReport { TreeReport(root: root, directories: directories) }

    /// The documented JSON: keys sorted, one line.
    package func encodedJSON() -> [UInt8] { ContractJSON.encode(self) }
}

/// What the engine hands over for a status request: the selected rows, paths still raw
/// bytes, and the counters. The connection's thread escapes and encodes it, so the engine
/// thread spends nothing on JSON.
package struct StatusSnapshot: Sendable, Equatable {
    package var root: String
    package var rows: [DirectoryRow]
    package var engine: EngineReport
    /// The files asked for (``TreeSelection/files``), largest first; nil when none were.
    package var files: [DirectoryRow]?

    package init(root: String, rows: [DirectoryRow], engine: EngineReport, files: [DirectoryRow]? = nil) {
        self.root = root
        self.rows = rows
        self.engine = engine
        self.files = files
    }

    package var report: StatusReport {
        StatusReport(
            tree: TreeReport(root: root, directories: rows.map(\.report)), engine: engine,
            files: files.map { $0.map(\.report) })
    }

    /// The reply as it crosses the control socket (see ``StatusWire``).
    package func wireJSON() -> [UInt8] {
        let wire = StatusWire(
            root: root, columns: StatusWire.columns,
            rows: rows.map { StatusWire.Row($0.report) }, engine: engine,
            files: files.map { $0.map { StatusWire.Row($0.report) } })
        return ContractJSON.encode(wire)
    }
}

/// The status reply on the control socket. Rows are arrays, not objects: the five keys of a
/// ``DirectoryReport`` would be most of the bytes (79 per directory instead of 36), and a view
/// that asks ten times a second should not pay for them. `columns` names each array's fields
/// in order; new ones are only ever appended, so a client reads the ones it knows by position.
/// A request with `files` gets a `"files"` member too, its rows in the same columns.
///
///     {"columns":["path","allocated","apparent","files","dirs"],"engine":{…},"root":"/abs",
///      "rows":[[".",32628736,25440742,3000,52],["Documents",1925120,1849937,36,5]]}
package struct StatusWire: Codable, Sendable, Equatable {
    package static let columns = ["path", "allocated", "apparent", "files", "dirs"]

    package var root: String
    package var columns: [String]
    package var rows: [Row]
    package var engine: EngineReport
    package var files: [Row]?

    package struct Row: Codable, Sendable, Equatable {
        package var directory: DirectoryReport

        package init(_ directory: DirectoryReport) { self.directory = directory }

        package func encode(to encoder: any Encoder) throws {
            var fields = encoder.unkeyedContainer()
            try fields.encode(directory.path)
            try fields.encode(directory.allocated)
            try fields.encode(directory.apparent)
            try fields.encode(directory.files)
            try fields.encode(directory.dirs)
        }

        package init(from decoder: any Decoder) throws {
            var fields = try decoder.unkeyedContainer()
            directory = DirectoryReport(
                path: try fields.decode(String.self), allocated: try fields.decode(UInt64.self),
                apparent: try fields.decode(UInt64.self), files: try fields.decode(UInt64.self),
                dirs: try fields.decode(UInt64.self))
        }
    }

    /// Reads a reply; throws when it is not a status reply or its columns do not start with
    /// the five this build knows.
    package static func report(from bytes: [UInt8]) throws -> StatusReport {
        let wire = try ContractJSON.decode(StatusWire.self, from: bytes)
        guard wire.columns.starts(with: columns) else {
            throw SelectionError(
                "the daemon's rows have the columns \(wire.columns), not \(columns); "
                    + "is it a different version of quotawatch?")
        }
        return StatusReport(
            tree: TreeReport(root: wire.root, directories: wire.rows.map(\.directory)), engine: wire.engine,
            files: wire.files.map { $0.map(\.directory) })
    }
}
