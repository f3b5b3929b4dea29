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
            let fields = (try? JSONSerialization.jsonObject(with: Data(event.line.utf8)) as? [String: Any]) ?? [:]
            for key in fields.keys.sorted() where !["event", "time", "path"].contains(key) {
                // Foundation reads true and false as the numbers 1 and 0; the line says which.
                let isBool = event.line.contains("\"\(key)\":true") || event.line.contains("\"\(key)\":false")
                let value = fields[key]!
                line +=
                    " \(key)=" + (isBool ? ((value as? NSNumber)?.boolValue == true ? "true" : "false") : detail(value))
            }
            text += line + "\n"
        }
        return text
    }

    private static func detail(_ value: Any) -> String {
        let text: String
        switch value {
        case let string as String: text = string.contains(" ") ? "\"\(string)\"" : string
        case is NSNull: text = "null"
        case let number as NSNumber: text = "\(number)"
        default:
            let data = try? JSONSerialization.data(
                withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
            text = data.map { String(decoding: $0, as: UTF8.self) } ?? "?"
        }
        let printable = TableRenderer.printable(text)
        return printable.count > 160 ? String(printable.prefix(159)) + "…" : printable
    }

    /// Each event's object as recorded, with its `time` (UTC, milliseconds) added when the
    /// event did not carry one (`ready`, `overflow`, …).
    static func jsonLines(_ events: [HistoryEvent]) -> String {
        var text = ""
        for event in events {
            var line = event.line
            if !line.contains("\"time\":"), line.hasPrefix("{"), line.count > 2 {
                line = "{" + "\"time\":\"\(event.time.iso8601)\"," + line.dropFirst()
            }
            text += line + "\n"
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

    private struct GrowthDocument: Encodable {
        struct Sample: Encodable {
            var time: String
            var allocated: UInt64
            var apparent: UInt64
            var reason: String
        }
        var path: String
        var samples: [Sample]
    }

    /// `{"path":"Caches/a","samples":[{"allocated":N,"apparent":N,"reason":"periodic","time":"…"}]}`.
    static func growthJSON(path: String, _ samples: [HistorySample]) -> String {
        let document = GrowthDocument(
            path: path,
            samples: samples.map {
                .init(time: $0.time.iso8601, allocated: $0.allocated, apparent: $0.apparent, reason: $0.reason)
            })
        return JSONOutput.encode(document) + "\n"
    }
}
