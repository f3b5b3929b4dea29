import CSQLite

/// A compiled statement of one ``SQLiteConnection``: bind values, step through rows, read
/// columns, reset to run again. Parameters are numbered from 1 and columns from 0, as in SQLite.
@safe package final class SQLiteStatement {
    /// A value bound to a parameter.
    package enum Value: Sendable, Equatable {
        case integer(Int64)
        case real(Double)
        case text(String)
        case null
    }

    private let connection: SQLiteConnection
    private let handle: OpaquePointer

    init(connection: SQLiteConnection, handle: OpaquePointer) {
        self.connection = connection
        unsafe self.handle = handle
    }

    deinit { unsafe sqlite3_finalize(handle) }

    /// Binds `values` to parameters 1, 2, ... after resetting the statement.
    ///
    /// The corresponding C functions are `sqlite3_reset` and `sqlite3_bind_*`.
    package func bind(_ values: [Value]) throws(SQLiteError) {
        unsafe sqlite3_reset(handle)
        unsafe sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .integer(let number): code = unsafe sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = unsafe sqlite3_bind_double(handle, index, number)
            case .null: code = unsafe sqlite3_bind_null(handle, index)
            case .text(let text):
                // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
                let transient = unsafe unsafeBitCast(-1, to: sqlite3_destructor_type.self)
                code = unsafe sqlite3_bind_text(handle, index, text, -1, transient)
            }
            guard code == SQLITE_OK else { throw connection.lastError(code, operation: "bind parameter \(index)") }
        }
    }

    /// Advances to the next row: true when there is one, false when the statement is done.
    ///
    /// The corresponding C function is `sqlite3_step`.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        let code = unsafe sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.lastError(code, operation: "step")
            unsafe sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds `values` and runs the statement to its end (an INSERT, UPDATE or DELETE).
    package func run(_ values: [Value] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    /// Binds `values` and collects every row with `read`.
    package func rows<T>(_ values: [Value] = [], _ read: (SQLiteStatement) -> T) throws(SQLiteError) -> [T] {
        try bind(values)
        var result: [T] = []
        while try step() { result.append(read(self)) }
        return result
    }

    /// The current row's column as an integer (0 for NULL).
    ///
    /// The corresponding C function is `sqlite3_column_int64`.
    package func integer(at column: Int32) -> Int64 { unsafe sqlite3_column_int64(handle, column) }

    /// Whether the current row's column is NULL.
    package func isNull(at column: Int32) -> Bool { unsafe sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The current row's column as text (nil for NULL).
    ///
    /// The corresponding C function is `sqlite3_column_text`.
    package func text(at column: Int32) -> String? {
        guard let bytes = unsafe sqlite3_column_text(handle, column) else { return nil }
        let count = Int(unsafe sqlite3_column_bytes(handle, column))
        return unsafe String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
