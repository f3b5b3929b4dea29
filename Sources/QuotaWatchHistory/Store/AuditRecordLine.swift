import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// One line of the audit log, read with its shape (``AuditRecordDocument``).
struct AuditRecordLine {
    let record: AuditRecordDocument

    init?(_ line: [UInt8]) {
        guard let record = try? ContractJSON.decode(AuditRecordDocument.self, from: line) else { return nil }
        self.record = record
    }

    var run: String { record.run }
    var sequence: UInt64 { record.sequence }
    var path: String? { record.path }

    /// The outcome's result; nil for an intent.
    var result: String? {
        guard case .outcome(let outcome) = record else { return nil }
        return outcome.result
    }

    var time: WallTime? {
        guard let text = record.time else { return nil }
        return try? HistoryTime.parse(
            text, now: WallTime(millisecondsSinceEpoch: 0), zone: TimeZone(secondsFromGMT: 0)!)
    }

    /// The `deletion` event of an intent: its fields, `event` for `record`, and the outcome;
    /// nil for an outcome.
    func deletionLine(result: String) -> String? {
        guard case .intent(let intent) = record else { return nil }
        return ContractJSON.encodedString(DeletionEventDocument(intent: intent, result: result))
    }

    /// A stored deletion line with its `result` replaced; nil when it is not a deletion event.
    static func withResult(_ line: String, _ result: String) -> String? {
        guard var event = try? ContractJSON.decode(DeletionEventDocument.self, from: Array(line.utf8)) else {
            return nil
        }
        event.result = result
        return ContractJSON.encodedString(event)
    }
}
