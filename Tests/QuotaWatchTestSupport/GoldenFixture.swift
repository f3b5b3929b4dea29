import Foundation

/// A golden fixture of the JSON contract: Tests/Fixtures/json/NAME.json holds one documented
/// shape's exact bytes, built from fixed inputs, followed by one newline (as the CLI prints
/// it). A test compares byte for byte, so a key renamed, reordered or re-formatted, a number
/// written differently or a name escaped otherwise shows as a failure naming the first byte
/// that differs. After a deliberate change, `QUOTAWATCH_REGENERATE_FIXTURES=1 swift test
/// --filter GoldenJSON` writes the new bytes instead (see docs/testing.md); review the diff.
public enum GoldenFixture {
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/json")

    public static var isRegenerating: Bool {
        ProcessInfo.processInfo.environment["QUOTAWATCH_REGENERATE_FIXTURES"] == "1"
    }

    /// Nil when `document` is the fixture's bytes (or was written, when regenerating); else
    /// what differs and where.
    public static func mismatch(_ document: [UInt8], _ name: String) -> String? {
        let url = directory.appendingPathComponent("\(name).json")
        let actual = document + [UInt8(ascii: "\n")]
        if isRegenerating {
            do {
                try Data(actual).write(to: url)
                return nil
            } catch {
                return "could not write \(url.path): \(error)"
            }
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return "no fixture \(url.path); write it with QUOTAWATCH_REGENERATE_FIXTURES=1"
        }
        let expected = Array(data)
        guard expected != actual else { return nil }
        let offset =
            zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(expected.count, actual.count)
        return """
            \(name).json differs at byte \(offset):
              expected: \(String(decoding: expected, as: UTF8.self))
              actual:   \(String(decoding: actual, as: UTF8.self))
            """
    }

    public static func mismatch(_ document: String, _ name: String) -> String? {
        mismatch(Array(document.utf8), name)
    }
}
