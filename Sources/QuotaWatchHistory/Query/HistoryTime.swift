import Foundation
import QuotaWatchCore
import QuotaWatchPolicy

/// The times `history` takes and shows. A time given by a person is either a span before now
/// (`30m`, `2h`, `1d`, as durations are written everywhere else) or an ISO-8601 timestamp,
/// local unless it names its zone (`2026-12-01`, `2026-12-01T10:00`, `2026-12-01 10:00:05`,
/// `2026-12-01T09:00:00Z`, `2026-12-01T10:00:00+01:00`). Pure: the clock and the zone are given.
package enum HistoryTime {
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package var input: String
        package var reason: String

        package var description: String {
            "invalid time '\(input)': \(reason); write a span before now such as 30m, 2h or 1d "
                + "(ms, s, m, h, d), 'now', or a timestamp such as 2026-12-01, 2026-12-01T10:00 "
                + "(local time) or 2026-12-01T09:00:00Z"
        }
    }

    /// Reads `text` as a time, relative to `now`, in `zone` when it names none.
    package static func parse(_ text: String, now: WallTime, zone: TimeZone) throws(ParseError) -> WallTime {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ParseError(input: text, reason: "it is empty") }
        if trimmed == "now" { return now }
        if trimmed.count >= 10, trimmed.utf8.dropFirst(4).first == UInt8(ascii: "-") {
            return try timestamp(trimmed, original: text, zone: zone)
        }
        do {
            let span = try TimeSpan(parsing: trimmed).duration
            let (seconds, attoseconds) = span.components
            return WallTime(
                millisecondsSinceEpoch: now.millisecondsSinceEpoch - seconds * 1000 - attoseconds
                    / 1_000_000_000_000_000)
        } catch {
            throw ParseError(input: text, reason: error.reason)
        }
    }

    /// `YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|±HH:MM|±HHMM]`.
    private static func timestamp(_ text: String, original: String, zone: TimeZone) throws(ParseError) -> WallTime {
        var scanner = DigitScanner(Array(text.utf8))
        func fail(_ reason: String) -> ParseError { ParseError(input: original, reason: reason) }
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
            let day = scanner.number(2)
        else { throw fail("a timestamp starts with the date as YYYY-MM-DD") }
        var hour = 0
        var minute = 0
        var second = 0
        var millisecond = 0
        if scanner.skip("T") || scanner.skip("t") || scanner.skip(" ") {
            guard let h = scanner.number(2), scanner.skip(":"), let m = scanner.number(2) else {
                throw fail("the time of day is written HH:MM or HH:MM:SS")
            }
            (hour, minute) = (h, m)
            if scanner.skip(":") {
                guard let s = scanner.number(2) else { throw fail("the seconds are written with two digits") }
                second = s
                if scanner.skip(".") {
                    let digits = scanner.digits()
                    guard !digits.isEmpty else { throw fail("no digits after the decimal point") }
                    millisecond = Int(String(decoding: (digits + [48, 48, 48]).prefix(3), as: UTF8.self)) ?? 0
                }
            }
        }
        var offsetSeconds: Int?
        if scanner.skip("Z") || scanner.skip("z") {
            offsetSeconds = 0
        } else if let sign = scanner.sign() {
            guard let h = scanner.number(2) else { throw fail("a zone offset is written +HH:MM") }
            _ = scanner.skip(":")
            guard let m = scanner.number(2), h <= 23, m <= 59 else { throw fail("a zone offset is written +HH:MM") }
            offsetSeconds = sign * (h * 3600 + m * 60)
        }
        guard scanner.atEnd else { throw fail("unexpected '\(scanner.rest)' after the timestamp") }
        guard (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60 else {
            throw fail("month, day, hour, minute or second out of range")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = offsetSeconds.flatMap { TimeZone(secondsFromGMT: $0) } ?? zone
        let components = DateComponents(
            year: year, month: month, day: day, hour: hour, minute: minute, second: min(second, 59))
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month
        else { throw fail("\(year)-\(month)-\(day) is not a day of the calendar") }
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        return WallTime(millisecondsSinceEpoch: seconds * 1000 + Int64(millisecond))
    }

    /// `2026-12-01T10:00:05+01:00`: the time in `zone`, to the second, with its offset.
    package static func local(_ time: WallTime, zone: TimeZone) -> String {
        // Floor division that cannot overflow: a stored time may be any Int64, Int64.min too.
        let milliseconds = time.millisecondsSinceEpoch
        let seconds = milliseconds / 1000 - (milliseconds % 1000 < 0 ? 1 : 0)
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        let offset = zone.secondsFromGMT(for: date)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset) ?? zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let number = value ?? 0
            return number < 10 ? "0\(number)" : "\(number)"
        }
        let sign = offset < 0 ? "-" : "+"
        let zoneText = offset == 0 ? "Z" : "\(sign)\(two(abs(offset) / 3600)):\(two(abs(offset) % 3600 / 60))"
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):"
            + "\(two(parts.second))\(zoneText)"
    }
}

/// Reads a timestamp's digits and separators left to right.
private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }
    var rest: String { String(decoding: bytes[index...], as: UTF8.self) }

    mutating func skip(_ character: Character) -> Bool {
        guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }

    /// Exactly `count` digits.
    mutating func number(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        let slice = bytes[index..<index + count]
        guard slice.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        index += count
        return Int(String(decoding: slice, as: UTF8.self))
    }

    mutating func digits() -> [UInt8] {
        let start = index
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
        return Array(bytes[start..<index])
    }
}
