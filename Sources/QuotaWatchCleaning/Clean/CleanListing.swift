import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The daemon's answer to `clean_list`: every file with a category, with the engine's
/// counters; on the wire a ``CleanListDocument``.
package struct CleanListing: Sendable, ControlReplyDocument {
    package var root: String
    package var items: [CleanItem]
    package var engine: EngineReport
    /// ROOT's descriptor, when the items' mtimes are still to be read (the daemon's listing):
    /// ``replyJSON()``, on the connection's thread, stats each path relative to it, takes the
    /// file's current numbers, and leaves out a name that now leads to another inode or none.
    var timesFrom: FileDescriptor?

    package init(root: String, items: [CleanItem], engine: EngineReport) {
        self.root = root
        self.items = items
        self.engine = engine
    }

    package static let columns = [
        "path", "category", "allocated", "apparent", "modified_ns", "device", "inode", "links",
    ]

    package func replyJSON() -> [UInt8] {
        var rows: [CleanListDocument.Row] = []
        rows.reserveCapacity(items.count)
        for var item in items {
            if let timesFrom {
                guard let fresh = item.restatted(relativeTo: timesFrom) else { continue }
                item = fresh
            }
            rows.append(
                CleanListDocument.Row(
                    path: EscapedName.string(item.path), category: item.category.rawValue,
                    allocated: item.allocatedBytes, apparent: item.apparentBytes, modified: item.modifiedNanoseconds,
                    device: item.device, inode: item.inode, links: item.linkCount))
        }
        let wire = CleanListDocument(columns: Self.columns, engine: engine, root: root, rows: rows)
        return ContractJSON.encode(wire)
    }

    /// Reads a reply; rows whose path has no category here (a daemon of another version) are
    /// left out.
    package static func decode(_ reply: [UInt8]) throws -> CleanListing {
        let wire = try ContractJSON.decode(CleanListDocument.self, from: reply)
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
}
