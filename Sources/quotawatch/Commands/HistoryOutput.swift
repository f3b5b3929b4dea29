import Foundation
import QuotaWatchCore
import QuotaWatchHistory
import QuotaWatchPolicy

/// How `history` prints: one line per event (time, kind, path, details), JSON lines, and the
/// growth table.
enum HistoryOutput {
    /// `2026-12-01T10:00:05+01:00 quota_breach Caches/a allocated=258048 limit=200000 …`: the
    /// local time, the kind as the JSON's `event`, the path, then every other field, sorted.
    static func lines(_ events: [HistoryEvent], zone: TimeZone) -> String {
        var text = ""
        for event in events {
            var line = HistoryTime.local(event.time, zone: zone) + " " + event.kind
            if let path = event.path { line += " " + TableRenderer.printable(path) }
            let fields = recordedFields(event) ?? [:]
            for key in fields.keys.sorted() where !["event", "time", "path"].contains(key) {
                line += " \(key)=" + detail(fields[key]!)
            }
            text += line + "\n"
        }
        return text
    }

    /// The fields of an event as history recorded it. History keeps each line as it was
    /// written, by whichever version of the daemon wrote it, so it is read as a free-form
    /// object (``PolicyJSON``), not as this build's shapes: an older line with fewer fields, or
    /// a kind this build does not know, is shown and printed all the same.
    private static func recordedFields(_ event: HistoryEvent) -> [String: PolicyJSON]? {
        guard case .object(let fields)? = try? ContractJSON.decode(PolicyJSON.self, from: Array(event.line.utf8))
        else { return nil }
        return fields
    }

    private static func detail(_ value: PolicyJSON) -> String {
        let text: String
        switch value {
        case .string(let string): text = string.contains(" ") ? "\"\(string)\"" : string
        case .null: text = "null"
        case .bool(let flag): text = flag ? "true" : "false"
        case .integer(let number): text = String(number)
        case .unsigned(let number): text = String(number)
        case .number(let number): text = "\(number)"
        case .array, .object: text = value.encoded
        }
        let printable = TableRenderer.printable(text)
        return printable.count > 160 ? String(printable.prefix(159)) + "…" : printable
    }

    /// Each event's object as recorded, with its `time` (UTC, milliseconds) added when the
    /// event did not carry one (`ready`, `overflow`, …), keys sorted as in every line of the
    /// contract. A line that is not a JSON object is printed as it was recorded.
    static func jsonLines(_ events: [HistoryEvent]) -> String {
        var text = ""
        for event in events {
            guard var fields = recordedFields(event) else {
                text += event.line + "\n"
                continue
            }
            if fields["time"] == nil { fields["time"] = .string(event.time.iso8601) }
            text += PolicyJSON.object(fields).encoded + "\n"
        }
        return text
    }

    static func growthTable(path: String, _ samples: [HistorySample], format: ByteFormat, zone: TimeZone) -> String {
        var rows = [["TIME", "ALLOCATED", "APPARENT", "CHANGE", "REASON"]]
        var previous: UInt64?
        for sample in samples {
            var change = "-"
            if let previous {
                let grew = sample.allocated >= previous
                let amount = grew ? sample.allocated - previous : previous - sample.allocated
                change = (grew ? "+" : "-") + format.string(amount)
            }
            previous = sample.allocated
            rows.append([
                HistoryTime.local(sample.time, zone: zone), format.string(sample.allocated),
                format.string(sample.apparent), change, sample.reason,
            ])
        }
        var widths = [Int](repeating: 0, count: 5)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        var text = "PATH: \(TableRenderer.printable(path))\n"
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                // Times and reasons read left to right, sizes line up on the right.
                return index == 0 || index == 4 ? cell + pad : pad + cell
            }
            text += cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        return text
    }

    /// `{"path":"Caches/a","samples":[{"allocated":N,"apparent":N,"reason":"periodic","time":"…"}]}`.
    static func growthJSON(path: String, _ samples: [HistorySample]) -> String {
        let document = HistoryGrowthDocument(
            path: path,
            samples: samples.map {
                .init(time: $0.time.iso8601, allocated: $0.allocated, apparent: $0.apparent, reason: $0.reason)
            })
        return ContractJSON.encodedString(document) + "\n"
    }
}
