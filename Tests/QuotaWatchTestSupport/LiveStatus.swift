import Foundation

/// The decoded output of `quotawatch status --json`: the scan's shape plus the engine's
/// counters.
public struct LiveStatus: Sendable {
    public struct Engine: Decodable, Sendable, Equatable, CustomStringConvertible {
        /// inotify events read since the daemon started.
        public let events: UInt64
        /// Directories listed since the first crawl.
        public let rescannedDirs: UInt64
        public let overflows: UInt64
        /// Directories the backend reports on: inotify's `watches`, or fanotify's
        /// `directories` (which leaves `watches` out).
        public let watches: Int
        /// fanotify's filesystem marks; nil under inotify.
        public let marks: Int?
        /// Topmost subtrees polled for want of a watch.
        public let degraded: [String]

        enum CodingKeys: String, CodingKey {
            case events, overflows, watches, degraded, marks, directories
            case rescannedDirs = "rescanned_dirs"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            events = try container.decode(UInt64.self, forKey: .events)
            rescannedDirs = try container.decode(UInt64.self, forKey: .rescannedDirs)
            overflows = try container.decode(UInt64.self, forKey: .overflows)
            degraded = try container.decode([String].self, forKey: .degraded)
            marks = try container.decodeIfPresent(Int.self, forKey: .marks)
            watches =
                try container.decodeIfPresent(Int.self, forKey: .watches)
                ?? container.decode(Int.self, forKey: .directories)
        }

        public var description: String {
            "events \(events), rescanned_dirs \(rescannedDirs), overflows \(overflows), watches \(watches), "
                + "degraded \(degraded)"
        }
    }

    private struct EngineOnly: Decodable {
        let engine: Engine
    }

    /// The directories, decoded exactly as a scan's report is.
    public let report: ScanReport
    public let engine: Engine
    /// The JSON text as the daemon sent it.
    public let json: [UInt8]

    public init(json: [UInt8]) throws {
        report = try ScanReport.decode(json)
        engine = try JSONDecoder().decode(EngineOnly.self, from: Data(json)).engine
        self.json = json
    }
}

/// Compares two reports of the same root directory by directory, for a daemon's live tallies
/// against a fresh scan.
public enum ReportComparison {
    /// Every way `live` differs from `scan`, at most `limit` of them, one per line.
    public static func differences(live: ScanReport, scan: ScanReport, limit: Int = 30) -> [String] {
        var problems: [String] = []
        if live.root != scan.root { problems.append("root is \(show(live.root)), the scan's is \(show(scan.root))") }
        for path in live.duplicatePaths { problems.append("\(show(path)) is listed more than once by the daemon") }
        let liveRows = live.directoriesByPath
        let scanRows = scan.directoriesByPath
        for row in scan.directories where liveRows[row.path] == nil {
            problems.append("\(show(row.path)) is missing from the daemon's report (scan: \(describe(row)))")
        }
        for row in live.directories where scanRows[row.path] == nil {
            problems.append("\(show(row.path)) is in the daemon's report (\(describe(row))) but not in the scan")
        }
        for row in scan.directories {
            guard let liveRow = liveRows[row.path], liveRow != row else { continue }
            problems.append("\(show(row.path)): daemon \(describe(liveRow)); scan \(describe(row))")
        }
        if problems.count > limit {
            return Array(problems.prefix(limit)) + ["… and \(problems.count - limit) more"]
        }
        return problems
    }

    private static func describe(_ row: ScanReport.Directory) -> String {
        "allocated \(row.allocated), apparent \(row.apparent), files \(row.files), dirs \(row.dirs)"
    }

    /// Quotes a reported path, showing control characters (a newline in a name) visibly.
    public static func show(_ path: String) -> String {
        "\""
            + path.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }
            .joined() + "\""
    }
}
