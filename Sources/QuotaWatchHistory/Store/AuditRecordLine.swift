import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// One line of the audit log, parsed.
struct AuditRecordLine {
    let fields: [String: Any]
    let kind: String
    let run: String
    let sequence: UInt64

    init?(_ line: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let kind = object["record"] as? String, let run = object["run"] as? String,
            let sequence = (object["seq"] as? NSNumber)?.uint64Value
        else { return nil }
        fields = object
        self.kind = kind
        self.run = run
        self.sequence = sequence
    }

    var path: String? { fields["path"] as? String }

    var time: WallTime? {
        guard let text = fields["time"] as? String else { return nil }
        return try? HistoryTime.parse(
            text, now: WallTime(millisecondsSinceEpoch: 0), zone: TimeZone(secondsFromGMT: 0)!)
    }

    /// The `deletion` event: the intent's fields, `event` for `record`, and the outcome.
    func deletionLine(result: String) -> String {
        var object: [String: PolicyJSON] = [:]
        for (key, value) in fields where key != "record" { object[key] = Self.json(value) }
        object["event"] = .string("deletion")
        object["result"] = .string(result)
        return PolicyJSON.object(object).encoded
    }

    /// A stored deletion line with its `result` replaced.
    static func withResult(_ line: String, _ result: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return nil
        }
        var fields: [String: PolicyJSON] = [:]
        for (key, value) in object { fields[key] = json(value) }
        fields["result"] = .string(result)
        return PolicyJSON.object(fields).encoded
    }

    /// Foundation's parsed JSON back into the encoder's values.
    static func json(_ value: Any) -> PolicyJSON {
        switch value {
        case let text as String: return .string(text)
        case let number as NSNumber:
            // Inodes need all 64 bits: integers are read as integers, never through a Double.
            let text = "\(number)"
            if text == "true" || text == "false" { return .bool(number.boolValue) }
            if text.contains(".") || text.contains("e") || text.contains("E") { return .number(number.doubleValue) }
            return text.hasPrefix("-") ? .integer(number.int64Value) : .unsigned(number.uint64Value)
        case let array as [Any]: return .array(array.map(json))
        case let object as [String: Any]: return .object(object.mapValues(json))
        default: return .null
        }
    }
}
