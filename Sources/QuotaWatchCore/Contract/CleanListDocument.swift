/// The `clean_list` reply: every file with a category, as rows named by `columns` (new
/// columns are only ever appended), with the engine's counters. Written by the daemon
/// (`CleanListing.replyJSON`) and read by `clean` (`CleanListing.decode`). Golden file
/// `reply-clean_list`.
///
/// `{"columns":["path","category","allocated","apparent","modified_ns","device","inode","links"],
/// "engine":{…},"root":"/abs/root","rows":[["tmp/CFNetworkDownload_A.tmp","leftovers",4096,…]]}`
package struct CleanListDocument: Codable, Sendable, Equatable {
    package var columns: [String]
    package var engine: EngineReport
    package var root: String
    package var rows: [Row]

    package init(columns: [String], engine: EngineReport, root: String, rows: [Row]) {
        self.columns = columns
        self.engine = engine
        self.root = root
        self.rows = rows
    }

    /// One file, as an array in the order of `columns`.
    package struct Row: Codable, Sendable, Equatable {
        /// Escaped as paths are.
        package var path: String
        package var category: String
        package var allocated: UInt64
        package var apparent: UInt64
        /// mtime, nanoseconds since the epoch.
        package var modified: Int64
        package var device: UInt64
        package var inode: UInt64
        package var links: UInt64

        package init(
            path: String, category: String, allocated: UInt64, apparent: UInt64, modified: Int64, device: UInt64,
            inode: UInt64, links: UInt64
        ) {
            self.path = path
            self.category = category
            self.allocated = allocated
            self.apparent = apparent
            self.modified = modified
            self.device = device
            self.inode = inode
            self.links = links
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(path)
            try container.encode(category)
            try container.encode(allocated)
            try container.encode(apparent)
            try container.encode(modified)
            try container.encode(device)
            try container.encode(inode)
            try container.encode(links)
        }

        package init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            path = try container.decode(String.self)
            category = try container.decode(String.self)
            allocated = try container.decode(UInt64.self)
            apparent = try container.decode(UInt64.self)
            modified = try container.decode(Int64.self)
            device = try container.decode(UInt64.self)
            inode = try container.decode(UInt64.self)
            links = try container.decode(UInt64.self)
        }
    }
}
