import Foundation
import QuotaWatchCore
import QuotaWatchPolicy

/// One event as a person reads it: `watch`'s log, and its output when stdout is not a
/// terminal (`quotawatch watch ROOT | tee log`). The line is
///
///     2026-12-01T03:04:05+01:00 quota_breach Library/Caches/Feed 12.5 MB allocated, limit 10.0 MB (rule Library/Caches/*)
///
/// the event's local time in ISO 8601 (seconds and the UTC offset), its kind exactly as the
/// JSON `"event"` field names it, then the details, sizes in the units asked for. Scripts can
/// split on the first two spaces.
package struct EventLine: Sendable, Equatable {
    /// How much attention the line deserves, for its colour.
    package enum Severity: Sendable, Equatable {
        case info, good, warning, bad
    }

    /// Local ISO 8601 time, such as `2026-12-01T03:04:05+01:00`.
    package var time: String
    /// The JSON `"event"` field: `quota_breach`, `level`, `leftover`, `cleanup`, …
    package var kind: String
    package var details: String
    package var severity: Severity
    /// Paths a cleanup removed, and the leftover a leftover event names, for the view's list
    /// of cleanup candidates.
    package var removedPaths: [String] = []
    package var leftover: Leftover?
    /// For a `cleanup_progress` line, the run and cleaner it reports on: the view keeps one
    /// such line per cleaner going on, updated in place, until the run's `cleanup` line.
    package var progressOf: String?
    /// For a `cleanup` line, its run: it takes the place of that run's progress lines.
    package var finishedRun: String?

    /// A download left idle, as its event reported it.
    package struct Leftover: Sendable, Equatable {
        package var path: String
        package var allocated: UInt64
        /// The event's time, in milliseconds since the epoch, and how long it had been idle then.
        package var reportedAt: Int64
        package var idleSeconds: Int64
    }

    package init(time: String, kind: String, details: String, severity: Severity) {
        self.time = time
        self.kind = kind
        self.details = details
        self.severity = severity
    }

    /// `time kind details`.
    package var text: String { details.isEmpty ? "\(time) \(kind)" : "\(time) \(kind) \(details)" }

    /// Reads one JSON event line (as `--events jsonl` writes it, or the control socket's event
    /// stream); nil when it is not a JSON object with an `"event"` string. `receivedAt` (ms since
    /// the epoch) dates events that carry no `"time"`; `utcOffset` is the local zone's offset
    /// from UTC in seconds at that moment.
    package static func parse(
        _ json: String, receivedAt: Int64, utcOffset: Int, format: ByteFormat
    ) -> EventLine? {
        guard let data = json.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let kind = object["event"] as? String
        else { return nil }
        let fields = Fields(object: object, format: format)
        let milliseconds = (object["time"] as? String).flatMap(Self.millisecondsSinceEpoch) ?? receivedAt
        var line = EventLine(
            time: localTime(milliseconds, utcOffset: utcOffset), kind: kind, details: "", severity: .info)
        describe(kind, fields, json: json, into: &line, reportedAt: milliseconds)
        return line
    }

    // MARK: Details per kind

    private static func describe(
        _ kind: String, _ fields: Fields, json: String, into line: inout EventLine, reportedAt: Int64
    ) {
        let format = fields.format
        func printable(_ text: String) -> String { DisplayWidth.builtIn.printable(text) }
        switch kind {
        case "quota_warning", "quota_breach", "quota_ok":
            let size = fields.has("apparent") ? "apparent" : "allocated"
            var text = "\(fields.string("path")) \(fields.size(size)) \(size), limit \(fields.size("limit"))"
            if fields.unsigned("effective_limit") != fields.unsigned("limit") {
                text += " (\(fields.size("effective_limit")) at level \(fields.string("level")))"
            }
            line.details = text + " (rule \(fields.string("rule")))"
            line.severity = kind == "quota_breach" ? .bad : kind == "quota_warning" ? .warning : .good
        case "level":
            line.details =
                "\(fields.string("from")) -> \(fields.string("to")), \(fields.size("free")) free of "
                + "\(fields.size("total")), root \(fields.size("root_allocated"))"
            let to = fields.string("to")
            line.severity = to == "normal" ? .good : to == "warning" ? .warning : .bad
        case "leftover":
            let idle = fields.integer("idle_seconds") ?? 0
            line.details =
                "\(fields.string("path")) \(fields.size("allocated")), idle \(DurationWords.compact(idle)) "
                + "(rule \(fields.string("rule")))"
            line.severity = .warning
            line.leftover = Leftover(
                path: fields.string("path"), allocated: fields.unsigned("allocated") ?? 0, reportedAt: reportedAt,
                idleSeconds: idle)
        case "leftover_gone":
            line.details =
                "\(fields.string("path")) is no longer a leftover: \(fields.string("reason")) (rule \(fields.string("rule")))"
            line.severity = .good
            // Off the view's leftover list, as a cleanup's removed paths are.
            if let path = fields.object["path"] as? String { line.removedPaths = [path] }
        case "quota_forecast":
            line.details =
                "\(fields.string("path")) breaches in \(DurationWords.compact(fields.integer("seconds_to_breach") ?? 0)) "
                + "at \(fields.size("bytes_per_second"))/s (rule \(fields.string("rule")))"
            line.severity = .warning
        case CleanupSummaryDocument.kind:
            guard let summary = try? ContractJSON.decode(CleanupSummaryDocument.self, from: Array(json.utf8)) else {
                line.details = "(an unreadable cleanup line)"
                return
            }
            let dryRun = summary.dryRun
            var text =
                "trigger \(printable(summary.trigger)): \(dryRun ? "would remove" : "removed") "
                + "\(summary.removed), \(dryRun ? "would free" : "freed") \(format.string(summary.freed)) "
                + "in " + String(format: "%.2fs", summary.seconds)
            if dryRun { text += " (dry run)" }
            let failed = summary.cleaners.compactMap { cleaner -> String? in
                guard let error = cleaner.error else { return nil }
                return "\(cleaner.name): \(error)"
            }
            if !failed.isEmpty { text += "; failed: " + failed.joined(separator: "; ") }
            line.details = text
            line.severity = failed.isEmpty ? .good : .bad
            if !dryRun { line.removedPaths = summary.cleaners.flatMap(\.paths) }
            line.finishedRun = summary.run.isEmpty ? nil : summary.run
        case CleanupProgressEvent.kind:
            guard let progress = try? ContractJSON.decode(CleanupProgressEvent.self, from: Array(json.utf8)) else {
                line.details = "cleaning (an unreadable progress line)"
                return
            }
            let dryRun = progress.dryRun
            line.details =
                "cleaning (\(printable(progress.cleaner)), trigger \(printable(progress.trigger))): "
                + "\(dryRun ? "would remove" : "removed") \(progress.removed), "
                + "\(dryRun ? "would free" : "freed") \(format.string(progress.freed)) so far, "
                + String(format: "%.2fs", progress.seconds.value)
            line.progressOf = printable(progress.run) + "/" + printable(progress.cleaner)
        case "hook_failed":
            var text = "\(fields.string("hook")) for \(fields.string("failed_event")): "
            if let signal = fields.integer("signal") {
                text += "killed by signal \(signal)"
            } else {
                text += "exit status \(fields.integer("status").map(String.init) ?? "?")"
            }
            let rawTail = fields.object["stderr_tail"] as? String ?? ""
            let tail =
                rawTail.split(whereSeparator: \.isNewline).last.map { DisplayWidth.builtIn.printable(String($0)) } ?? ""
            if !tail.isEmpty { text += ": \(tail)" }
            line.details = text
            line.severity = .bad
        case "ready":
            line.details =
                "\(fields.integer("dirs") ?? 0) dirs, \(fields.integer("files") ?? 0) files, "
                + "\(fields.size("allocated")) in \(fields.seconds("seconds"))"
            line.severity = .good
        case "overflow":
            line.details = "the kernel's event queue overflowed; resyncing"
            line.severity = .warning
        case "resynced":
            line.details = "\(fields.integer("dirs") ?? 0) dirs listed again in \(fields.seconds("seconds"))"
            line.severity = .good
        case "degraded":
            let paths = fields.object["paths"] as? [String] ?? []
            line.details = "\(paths.count) subtree(s) polled, not watched: " + paths.prefix(3).joined(separator: ", ")
            line.severity = .warning
        case "subscribed":
            line.details =
                "to the daemon's events from now on (\(fields.integer("capacity") ?? 0) kept if this view lags)"
            line.severity = .good
        case "dropped":
            line.details = "\(fields.integer("count") ?? 0) event(s) dropped: this view read them too slowly"
            line.severity = .warning
        case "root_gone", "config_error":
            line.details = fields.string("message")
            line.severity = .bad
        case "config_reloaded":
            line.details = "\(fields.integer("quotas") ?? 0) quotas, \(fields.integer("budgets") ?? 0) budgets"
            line.severity = .good
        default:
            // `root` is the same on every line of one daemon: the view's title shows it.
            line.details = fields.object.keys.sorted().filter { !["event", "time", "root"].contains($0) }
                .map { "\($0)=\(fields.object[$0].map { "\($0)" } ?? "")" }.joined(separator: " ")
        }
    }

    /// The fields of one event, read leniently: a missing field shows as "?".
    private struct Fields {
        var object: [String: Any]
        var format: ByteFormat

        func has(_ key: String) -> Bool { object[key] != nil && !(object[key] is NSNull) }

        func string(_ key: String) -> String {
            guard let text = object[key] as? String else { return "?" }
            return DisplayWidth.builtIn.printable(text)
        }

        func integer(_ key: String) -> Int64? { (object[key] as? NSNumber)?.int64Value }

        func unsigned(_ key: String) -> UInt64? { (object[key] as? NSNumber)?.uint64Value }

        func size(_ key: String) -> String { unsigned(key).map(format.string) ?? "?" }

        func seconds(_ key: String) -> String {
            guard let value = (object[key] as? NSNumber)?.doubleValue else { return "?" }
            return String(format: "%.2fs", value)
        }
    }

    // MARK: Time

    /// `milliseconds` since the epoch as local ISO 8601 to the second, with the offset.
    package static func localTime(_ milliseconds: Int64, utcOffset: Int) -> String {
        let offset = Saturating.product(Int64(utcOffset), 1000)
        let shifted = WallTime(millisecondsSinceEpoch: Saturating.sum(milliseconds, offset)).iso8601
        // "2026-12-01T03:04:05.123Z": keep the seconds, then the offset.
        let stamp = String(shifted.prefix(19))
        let sign = utcOffset < 0 ? "-" : "+"
        let minutes = abs(utcOffset) / 60
        return stamp + sign + twoDigits(minutes / 60) + ":" + twoDigits(minutes % 60)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Reads the UTC times events carry ("2026-11-30T23:04:05.123Z").
    static func millisecondsSinceEpoch(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        let milliseconds = bytes.count >= 24 ? number(20..<23) ?? 0 : 0
        // Howard Hinnant's days-from-civil, the inverse of WallTime's.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milliseconds
    }
}

/// Short durations for people: "45s", "3m 20s", "2h 5m", "3d 4h".
package enum DurationWords {
    package static func compact(_ seconds: Int64) -> String {
        let seconds = max(0, seconds)
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m \(seconds % 60)s" }
        if seconds < 86_400 { return "\(seconds / 3600)h \(seconds % 3600 / 60)m" }
        return "\(seconds / 86_400)d \(seconds % 86_400 / 3600)h"
    }
}
