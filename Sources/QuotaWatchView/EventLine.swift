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
        let bytes = Array(json.utf8)
        guard let event = try? ContractJSON.decode(ContractEvent.self, from: bytes) else { return nil }
        let milliseconds = event.time.flatMap(Self.millisecondsSinceEpoch) ?? receivedAt
        var line = EventLine(
            time: localTime(milliseconds, utcOffset: utcOffset), kind: event.kind, details: "", severity: .info)
        describe(event.payload, bytes, format: format, into: &line, reportedAt: milliseconds)
        return line
    }

    // MARK: Details per kind

    private static func describe(
        _ payload: ContractEvent.Payload, _ bytes: [UInt8], format: ByteFormat, into line: inout EventLine,
        reportedAt: Int64
    ) {
        func printable(_ text: String) -> String { DisplayWidth.builtIn.printable(text) }
        func seconds(_ number: ContractNumber) -> String { String(format: "%.2fs", number.value) }
        switch payload {
        case .quota(let state, let path, let size, let used, let limit, let effectiveLimit, let rule, let level):
            var text =
                "\(printable(path)) \(format.string(used)) \(size.rawValue), limit \(format.string(limit))"
            if effectiveLimit != limit {
                text += " (\(format.string(effectiveLimit)) at level \(level.rawValue))"
            }
            line.details = text + " (rule \(printable(rule)))"
            line.severity = state == .breach ? .bad : state == .warning ? .warning : .good
        case .level(let from, let to, let free, let total, let rootAllocated):
            line.details =
                "\(from.rawValue) -> \(to.rawValue), \(format.string(free)) free of "
                + "\(format.string(total)), root \(format.string(rootAllocated))"
            line.severity = to == .normal ? .good : to == .warning ? .warning : .bad
        case .leftover(let path, let allocated, let idle, let rule):
            line.details =
                "\(printable(path)) \(format.string(allocated)), idle \(DurationWords.compact(idle)) "
                + "(rule \(printable(rule)))"
            line.severity = .warning
            line.leftover = Leftover(
                path: printable(path), allocated: allocated, reportedAt: reportedAt, idleSeconds: idle)
        case .leftoverGone(let path, let rule, let reason):
            line.details =
                "\(printable(path)) is no longer a leftover: \(printable(reason)) (rule \(printable(rule)))"
            line.severity = .good
            // Off the view's leftover list, as a cleanup's removed paths are.
            line.removedPaths = [path]
        case .forecast(let path, let secondsToBreach, let rate, let rule):
            line.details =
                "\(printable(path)) breaches in \(DurationWords.compact(secondsToBreach)) "
                + "at \(format.string(UInt64(clamping: rate)))/s (rule \(printable(rule)))"
            line.severity = .warning
        case .hookFailed(let hook, let failedEvent, let status, let signal, let rawTail):
            var text = "\(printable(hook)) for \(printable(failedEvent)): "
            if let signal {
                text += "killed by signal \(signal)"
            } else {
                text += "exit status \(status.map(String.init) ?? "?")"
            }
            let tail = rawTail.split(whereSeparator: \.isNewline).last.map { printable(String($0)) } ?? ""
            if !tail.isEmpty { text += ": \(tail)" }
            line.details = text
            line.severity = .bad
        case .ready(let directories, let files, let allocated, let duration, _, _):
            line.details =
                "\(directories) dirs, \(files) files, \(format.string(allocated)) in \(seconds(duration))"
            line.severity = .good
        case .overflow:
            line.details = "the kernel's event queue overflowed; resyncing"
            line.severity = .warning
        case .resynced(let directories, let duration):
            line.details = "\(directories) dirs listed again in \(seconds(duration))"
            line.severity = .good
        case .degraded(let paths, _, _, _):
            line.details =
                "\(paths.count) subtree(s) polled, not watched: " + paths.prefix(3).joined(separator: ", ")
            line.severity = .warning
        case .subscribed(let capacity, _, let recent):
            // Asked for, the events from before come first: this line is where they end.
            let earlier = recent ?? 0
            let kept = "(\(capacity) kept if this view lags)"
            line.details =
                earlier > 0
                ? "the \(earlier == 1 ? "event" : "\(earlier) events") above came before this view attached; "
                    + "live from here on \(kept)"
                : "to the daemon's events from now on \(kept)"
            line.severity = .good
        case .dropped(let count):
            line.details = "\(count) event(s) dropped: this view read them too slowly"
            line.severity = .warning
        case .rootGone(let message), .configError(let message):
            line.details = printable(message)
            line.severity = .bad
        case .configReloaded(let quotas, let budgets):
            line.details = "\(quotas) quotas, \(budgets) budgets"
            line.severity = .good
        case .registered(let name, let paths, _, _):
            line.details = "\(printable(name)) for " + paths.map(printable).joined(separator: ", ")
        case .historyDropped(let dropped):
            line.details = "\(dropped) event(s) not kept by history"
            line.severity = .warning
        case .historyReset(let movedTo, let reason):
            line.details = "history started again; the old database is \(printable(movedTo)): \(printable(reason))"
            line.severity = .bad
        case .other(CleanupSummaryDocument.kind, _):
            describeCleanup(bytes, format: format, into: &line)
        case .other(CleanupProgressEvent.kind, _):
            describeProgress(bytes, format: format, into: &line)
        case .other(_, let fields):
            // `root` is the same on every line of one daemon: the view's title shows it.
            line.details = fields.keys.sorted().map { key in
                switch fields[key]! {
                case .string(let text): "\(key)=\(printable(text))"
                case let value: "\(key)=\(printable(value.encoded))"
                }
            }.joined(separator: " ")
        }
    }

    private static func describeCleanup(_ bytes: [UInt8], format: ByteFormat, into line: inout EventLine) {
        guard let summary = try? ContractJSON.decode(CleanupSummaryDocument.self, from: bytes) else {
            line.details = "(an unreadable cleanup line)"
            return
        }
        let dryRun = summary.dryRun
        var text =
            "trigger \(DisplayWidth.builtIn.printable(summary.trigger)): \(dryRun ? "would remove" : "removed") "
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
    }

    private static func describeProgress(_ bytes: [UInt8], format: ByteFormat, into line: inout EventLine) {
        guard let progress = try? ContractJSON.decode(CleanupProgressEvent.self, from: bytes) else {
            line.details = "cleaning (an unreadable progress line)"
            return
        }
        func printable(_ text: String) -> String { DisplayWidth.builtIn.printable(text) }
        let dryRun = progress.dryRun
        line.details =
            "cleaning (\(printable(progress.cleaner)), trigger \(printable(progress.trigger))): "
            + "\(dryRun ? "would remove" : "removed") \(progress.removed), "
            + "\(dryRun ? "would free" : "freed") \(format.string(progress.freed)) so far, "
            + String(format: "%.2fs", progress.seconds.value)
        line.progressOf = printable(progress.run) + "/" + printable(progress.cleaner)
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
