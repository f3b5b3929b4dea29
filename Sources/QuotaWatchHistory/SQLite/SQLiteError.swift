import CSQLite

/// A failed SQLite call: its primary result code, SQLite's message, and what was being done.
package struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, ...), extended bits dropped.
    package var code: Int32
    package var message: String
    /// What QuotaWatch was doing: "open", "prepare", "step", ...
    package var operation: String

    package init(code: Int32, message: String, operation: String) {
        self.code = code & 0xff
        self.message = message
        self.operation = operation
    }

    /// The primary codes QuotaWatch sorts errors by, for code that does not import SQLite.
    package static let readOnly = SQLITE_READONLY
    package static let cannotOpen = SQLITE_CANTOPEN
    package static let notADatabase = SQLITE_NOTADB

    /// Another connection holds the lock, longer than the busy timeout.
    package var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// The file is not a database, or its pages are damaged: it will not get better by waiting.
    package var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    package var description: String { "\(operation): \(message) (SQLite code \(code))" }
}
