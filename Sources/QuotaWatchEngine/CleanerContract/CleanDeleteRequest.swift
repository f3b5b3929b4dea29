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
package struct CleanDeleteRequest: Hashable, Sendable {
    package var selection: CleanSelection
    package var dryRun: Bool

    package init(selection: CleanSelection, dryRun: Bool) {
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
