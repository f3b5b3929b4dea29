import Foundation

/// The decoded output of `quotawatch scan --json`.
public struct ScanReport: Decodable, Sendable {
    public struct Directory: Decodable, Sendable, Equatable {
        /// Relative to the root: "." or "a/b", with undecodable bytes as
        /// `\xNN` and backslashes doubled.
        public let path: String
        public let allocated: Int64
        public let apparent: Int64
        public let files: Int
        public let dirs: Int
    }

    public let root: String
    public let directories: [Directory]

    /// Decodes `bytes`, which must be exactly one JSON object (surrounding
    /// whitespace aside).
    public static func decode(_ bytes: [UInt8]) throws -> ScanReport {
        try JSONDecoder().decode(ScanReport.self, from: Data(bytes))
    }

    /// The entries by path; a path listed twice keeps its last entry (see
    /// ``duplicatePaths``).
    public var directoriesByPath: [String: Directory] {
        Dictionary(directories.map { ($0.path, $0) }) { _, last in last }
    }

    public var duplicatePaths: [String] {
        Dictionary(grouping: directories, by: \.path).filter { $0.value.count > 1 }.map(\.key).sorted()
    }
}
