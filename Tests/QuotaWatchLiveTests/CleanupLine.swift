import Foundation
import QuotaWatchTestSupport

/// A `cleanup` event line (or `clean-now --json` reply), as a test reads it.
struct CleanupLine {
    let text: String
    let object: [String: Any]

    init(_ line: EngineEventLine) throws { try self.init(text: line.text) }

    init(text: String) throws {
        self.text = text
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw DaemonError("not a cleanup summary: \(text)")
        }
        self.object = object
    }

    var trigger: String? { object["trigger"] as? String }
    var dryRun: Bool { object["dry_run"] as? Bool ?? false }
    var run: String? { object["run"] as? String }
    private var cleaners: [[String: Any]] { object["cleaners"] as? [[String: Any]] ?? [] }
    var cleanerNames: [String] { cleaners.compactMap { $0["name"] as? String } }

    func paths(_ cleaner: String) -> [String] {
        cleaners.first { $0["name"] as? String == cleaner }?["paths"] as? [String] ?? []
    }

    func error(_ cleaner: String) -> String? {
        cleaners.first { $0["name"] as? String == cleaner }?["error"] as? String
    }

    func freed(_ cleaner: String) -> UInt64? {
        (cleaners.first { $0["name"] as? String == cleaner }?["freed"] as? NSNumber)?.uint64Value
    }
}
