import CSQLite

/// One SQLite connection, used by one thread at a time. Everything QuotaWatch does with SQLite
/// goes through this type and ``SQLiteStatement``; callers see typed ``SQLiteError``s, never
/// result codes.
@safe package final class SQLiteConnection {
    package enum Mode: Sendable {
        /// Read and write, creating the file when missing.
        case readWriteCreate
        /// Read and write; the file must exist.
        case readWrite
        /// Read only; the file must exist.
        case readOnly
        /// Read only, as a file nobody changes (`immutable=1`): no lock, no `-shm` or `-wal` file
        /// made, so a database in a directory this user cannot write is still read. What a
        /// write-ahead log left there holds and no checkpoint moved in is not seen.
        case immutable
    }

    private let handle: OpaquePointer
    package let path: [UInt8]

    /// Opens `path`. `busyTimeoutMilliseconds` is how long a statement waits for another
    /// connection's lock before failing with `SQLITE_BUSY`.
    ///
    /// The corresponding C functions are `sqlite3_open_v2` and `sqlite3_busy_timeout`.
    package init(path: [UInt8], mode: Mode, busyTimeoutMilliseconds: Int32 = 1000) throws(SQLiteError) {
        self.path = path
        let flags: Int32 =
            switch mode {
            case .readWriteCreate: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            case .readWrite: SQLITE_OPEN_READWRITE
            case .readOnly: SQLITE_OPEN_READONLY
            case .immutable: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            }
        var opened: OpaquePointer?
        let name = mode == .immutable ? Self.immutableURI(path) : path
        let terminated = name.map { CChar(bitPattern: $0) } + [0]
        let code = unsafe sqlite3_open_v2(terminated, &opened, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard let opened = unsafe opened else {
            throw SQLiteError(code: code, message: "out of memory", operation: "open")
        }
        guard code == SQLITE_OK else {
            let error = SQLiteError(code: code, message: unsafe Self.message(opened), operation: "open")
            unsafe sqlite3_close_v2(opened)
            throw error
        }
        unsafe handle = opened
        unsafe sqlite3_extended_result_codes(handle, 0)
        unsafe sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { unsafe sqlite3_close_v2(handle) }

    /// `file:PATH?immutable=1`, the path's bytes percent-encoded where a URI needs it (`?`, `#`,
    /// `%`, and anything not printable ASCII).
    static func immutableURI(_ path: [UInt8]) -> [UInt8] {
        var uri = Array("file:".utf8)
        for byte in path {
            if byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "?"), byte != UInt8(ascii: "#"),
                byte != UInt8(ascii: "%")
            {
                uri.append(byte)
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                uri += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return uri + Array("?immutable=1".utf8)
    }

    /// Compiles one SQL statement.
    ///
    /// The corresponding C function is `sqlite3_prepare_v2`.
    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = unsafe sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement = unsafe statement else {
            throw SQLiteError(code: code, message: unsafe Self.message(handle) + " in: \(sql)", operation: "prepare")
        }
        return unsafe SQLiteStatement(connection: self, handle: statement)
    }

    /// Runs statements that return no rows (schema, pragmas, BEGIN/COMMIT).
    ///
    /// The corresponding C function is `sqlite3_exec`.
    package func execute(_ sql: String) throws(SQLiteError) {
        let code = unsafe sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: unsafe Self.message(handle), operation: "execute '\(sql)'")
        }
    }

    /// The first column of the first row of a query, as an integer (a pragma's value).
    package func integer(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.integer(at: 0)
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`, so a writer waits for the lock at
    /// the start, not half-way): committed when it returns, rolled back when it throws.
    package func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    ///
    /// The corresponding C function is `sqlite3_changes`.
    package var changes: Int { Int(unsafe sqlite3_changes(handle)) }

    func lastError(_ code: Int32, operation: String) -> SQLiteError {
        SQLiteError(code: code, message: unsafe Self.message(handle), operation: operation)
    }

    private static func message(_ handle: OpaquePointer) -> String {
        guard let text = unsafe sqlite3_errmsg(handle) else { return "unknown error" }
        return unsafe String(cString: text)
    }
}
