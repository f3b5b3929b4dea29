import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// A `clean_delete` request: the selection, in the words of the command line, and whether
/// to report only.
///
/// `{"command":"clean_delete","categories":["caches","caches:com.example.feed"],
/// "kinds":["video"],"paths":["Documents/x.mov"],"older_than_ms":86400000,
/// "larger_than":1000000,"dry_run":true}`: every field but `command` may be left out, but
/// the request must name a category, kind or path.
public struct CleanDeleteRequest: Hashable, Sendable {
    public var selection: CleanSelection
    public var dryRun: Bool

    public init(selection: CleanSelection, dryRun: Bool) {
        self.selection = selection
        self.dryRun = dryRun
    }

    static let fields = ["command", "categories", "kinds", "paths", "older_than_ms", "larger_than", "dry_run"]

    enum WireValue {
        case strings([String])
        case number(UInt64)
        case flag(Bool)
    }

    func wireFields() -> [(String, WireValue)] {
        var fields: [(String, WireValue)] = []
        var categories = selection.categories.sorted().map(\.rawValue)
        let cachePrefix = Array("Library/Caches/".utf8).count
        categories += selection.cacheGroups.map { "caches:" + EscapedName.string($0.dropFirst(cachePrefix)) }.sorted()
        if !categories.isEmpty { fields.append(("categories", .strings(categories))) }
        if !selection.kinds.isEmpty { fields.append(("kinds", .strings(selection.kinds.sorted().map(\.rawValue)))) }
        if !selection.paths.isEmpty { fields.append(("paths", .strings(selection.paths.map(EscapedName.string)))) }
        if let olderThan = selection.olderThan {
            fields.append(("older_than_ms", .number(UInt64(max(0, olderThan.clampedMilliseconds)))))
        }
        if let largerThan = selection.largerThan { fields.append(("larger_than", .number(largerThan))) }
        if dryRun { fields.append(("dry_run", .flag(true))) }
        return fields
    }
}

/// The daemon's answer to `clean_list`: every file with a category, as rows named by
/// `columns` (new columns are only ever appended), with the engine's counters.
///
/// `{"columns":["path","category","allocated","apparent","modified_ns","device","inode","links"],
/// "engine":{…},"root":"/abs/root","rows":[["tmp/CFNetworkDownload_A.tmp","leftovers",4096,…]]}`
public struct CleanListing: Sendable, ControlReplyDocument {
    public var root: String
    public var items: [CleanItem]
    public var engine: EngineReport
    /// ROOT's descriptor, when the items' mtimes are still to be read (the daemon's listing):
    /// ``replyJSON()``, on the connection's thread, stats each path relative to it, takes the
    /// file's current numbers, and leaves out a name that now leads to another inode or none.
    var timesFrom: FileDescriptor?

    public init(root: String, items: [CleanItem], engine: EngineReport) {
        self.root = root
        self.items = items
        self.engine = engine
    }

    public static let columns = [
        "path", "category", "allocated", "apparent", "modified_ns", "device", "inode", "links",
    ]

    public func replyJSON() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var rows: [Row] = []
        rows.reserveCapacity(items.count)
        for var item in items {
            if let timesFrom {
                guard let status = try? timesFrom.status(of: item.path), status.kind != .directory,
                    status.device == item.device, status.inode == item.inode
                else { continue }
                item.modifiedNanoseconds = status.modifiedNanoseconds
                item.allocatedBytes = status.allocatedBytes
                item.apparentBytes = status.apparentBytes
                item.linkCount = status.linkCount
            }
            rows.append(Row(item))
        }
        let wire = Wire(columns: Self.columns, engine: engine, root: root, rows: rows)
        return Array((try? encoder.encode(wire)) ?? Data())
    }

    /// Reads a reply; rows whose path has no category here (a daemon of another version) are
    /// left out.
    public static func decode(_ reply: [UInt8]) throws -> CleanListing {
        let wire = try JSONDecoder().decode(Wire.self, from: Data(reply))
        guard Array(wire.columns.prefix(columns.count)) == columns else {
            throw ControlProtocol.Failure("the clean_list reply has columns \(wire.columns), not \(columns)")
        }
        var items: [CleanItem] = []
        for row in wire.rows {
            guard let path = EscapedName.bytes(row.path), let classification = CleanClassifier.classify(path),
                classification.category.rawValue == row.category
            else { continue }
            items.append(
                CleanItem(
                    path: path, classification: classification, device: row.device, inode: row.inode,
                    linkCount: row.links, allocatedBytes: row.allocated, apparentBytes: row.apparent,
                    modifiedNanoseconds: row.modified))
        }
        return CleanListing(root: wire.root, items: items, engine: wire.engine)
    }

    private struct Wire: Codable {
        var columns: [String]
        var engine: EngineReport
        var root: String
        var rows: [Row]
    }

    private struct Row: Codable {
        var path: String
        var category: String
        var allocated: UInt64
        var apparent: UInt64
        var modified: Int64
        var device: UInt64
        var inode: UInt64
        var links: UInt64

        init(_ item: CleanItem) {
            path = EscapedName.string(item.path)
            category = item.category.rawValue
            allocated = item.allocatedBytes
            apparent = item.apparentBytes
            modified = item.modifiedNanoseconds
            device = item.device
            inode = item.inode
            links = item.linkCount
        }

        func encode(to encoder: any Encoder) throws {
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

        init(from decoder: any Decoder) throws {
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

/// What a deletion did, from the daemon or the CLI's own deleter: each name removed (or, in
/// a dry run, that would be) with the bytes the file system got back, each name kept and why.
///
/// `{"dry_run":false,"freed":40960,"removed":[{"freed":4096,"path":"tmp/a"}],"run":"…",
/// "skipped":[{"path":"tmp/b","reason":"open for writing by pid 42"}]}`
public struct CleanDeletionReport: Sendable, Hashable, ControlReplyDocument {
    public var run: String
    public var dryRun: Bool
    public var removed: [RemovedItem]
    public var skipped: [SkippedItem]
    /// The selection cleaner's error (it timed out, say); nil when it finished.
    public var error: String?

    public init(run: String, dryRun: Bool, result: CleanupResult) {
        self.run = run
        self.dryRun = dryRun
        removed = result.removed
        skipped = result.skipped
        error = result.error
    }

    public var freedBytes: UInt64 { removed.reduce(0) { Saturating.sum($0, $1.freedBytes) } }

    public var fields: [String: PolicyJSON] {
        [
            "run": .string(run), "dry_run": .bool(dryRun), "freed": .unsigned(freedBytes),
            "error": error.map { .string($0) } ?? .null,
            "removed": .array(
                removed.map {
                    .object(["path": .string(EscapedName.string($0.path)), "freed": .unsigned($0.freedBytes)])
                }
            ),
            "skipped": .array(
                skipped.map { .object(["path": .string(EscapedName.string($0.path)), "reason": .string($0.reason)]) }),
        ]
    }

    public func replyJSON() -> [UInt8] { Array(PolicyJSON.object(fields).encoded.utf8) }

    public static func decode(_ reply: [UInt8]) throws -> CleanDeletionReport {
        guard let object = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
            let run = object["run"] as? String, let dryRun = object["dry_run"] as? Bool,
            let removed = object["removed"] as? [[String: Any]], let skipped = object["skipped"] as? [[String: Any]]
        else { throw ControlProtocol.Failure("the clean_delete reply is not a deletion report") }
        var result = CleanupResult()
        for entry in removed {
            guard let path = (entry["path"] as? String).flatMap(EscapedName.bytes) else { continue }
            result.removed.append(RemovedItem(path: path, freedBytes: (entry["freed"] as? NSNumber)?.uint64Value ?? 0))
        }
        for entry in skipped {
            guard let path = (entry["path"] as? String).flatMap(EscapedName.bytes) else { continue }
            result.skipped.append(SkippedItem(path: path, reason: entry["reason"] as? String ?? "?"))
        }
        var report = CleanDeletionReport(run: run, dryRun: dryRun, result: result)
        report.error = object["error"] as? String
        return report
    }
}
