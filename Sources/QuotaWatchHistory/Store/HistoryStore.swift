import QuotaWatchCore
import QuotaWatchPolicy

/// The history database: `history.sqlite` in the root's state directory, next to the audit log.
///
/// Tables: `events` (one row per event; deletions imported from the audit log carry their
/// record's key), `samples` (sizes over time) and `audit_import` (how far the audit log has
/// been imported). WAL mode, so `quotawatch history` reads while the daemon writes; incremental
/// auto-vacuum, so retention gives pages back to the file system.
package final class HistoryStore {
    package static let fileName = "history.sqlite"
    /// 2: dry-run cleanups have the kind `cleanup_dry_run`.
    static let schemaVersion: Int64 = 2

    let connection: SQLiteConnection

    /// Opens the database for the recorder, creating it and its tables when missing.
    package init(writingTo path: [UInt8], busyTimeoutMilliseconds: Int32 = 1000) throws(SQLiteError) {
        connection = try SQLiteConnection(
            path: path, mode: .readWriteCreate, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        // auto_vacuum only takes effect before the first table is made.
        try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = NORMAL")
        try connection.execute("PRAGMA journal_size_limit = 4194304")
        try connection.transaction { () throws(SQLiteError) in
            let storedVersion = try connection.integer("PRAGMA user_version") ?? 0
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS events(
                    id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, kind TEXT NOT NULL, path TEXT,
                    line TEXT NOT NULL, audit_key TEXT UNIQUE, audit_run TEXT, audit_seq INTEGER);
                CREATE INDEX IF NOT EXISTS events_by_time ON events(time_ms);
                CREATE INDEX IF NOT EXISTS events_by_audit_record ON events(audit_run, audit_seq)
                    WHERE audit_run IS NOT NULL;
                CREATE TABLE IF NOT EXISTS samples(
                    id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, path TEXT NOT NULL,
                    allocated INTEGER NOT NULL, apparent INTEGER NOT NULL, reason TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS samples_by_path ON samples(path, time_ms);
                CREATE TABLE IF NOT EXISTS audit_import(
                    id INTEGER PRIMARY KEY CHECK (id = 1), device INTEGER NOT NULL, inode INTEGER NOT NULL,
                    offset INTEGER NOT NULL);
                PRAGMA user_version = \(Self.schemaVersion);
                """)
            // Dry runs recorded before they had a kind of their own (keys sorted, so the flag
            // is spelled one way; the cleaners' objects have no `dry_run`).
            if storedVersion < 2 {
                try connection.execute(
                    """
                    UPDATE events SET kind = '\(HistoryQuery.dryRunCleanupKind)'
                        WHERE kind = 'cleanup' AND line LIKE '%"dry_run":true%';
                    """)
            }
        }
    }

    /// Opens an existing database to read (`quotawatch history`). It is opened read-write when
    /// it can be, since a reader of a WAL database may have to create its shared-memory file,
    /// but nothing is written.
    package init(readingFrom path: [UInt8]) throws(SQLiteError) {
        // Read-write first (a reader of a WAL database needs its -shm), then read-only, then, in a
        // state directory this user cannot write (no -shm can be made), immutable: what is there
        // is read either way. Each is tried on its first query, where SQLite finds out.
        var failure: SQLiteError?
        for mode in [SQLiteConnection.Mode.readWrite, .readOnly, .immutable] {
            do {
                let opened = try SQLiteConnection(path: path, mode: mode, busyTimeoutMilliseconds: 5000)
                try Self.checkTables(opened)
                connection = opened
                return
            } catch  where error.code == SQLiteError.readOnly || error.code == SQLiteError.cannotOpen {
                failure = failure ?? error
            }
        }
        throw failure!
    }

    private static func checkTables(_ connection: SQLiteConnection) throws(SQLiteError) {
        let tables = try connection.integer(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'samples')")
        guard tables == 2 else {
            throw SQLiteError(code: SQLiteError.notADatabase, message: "it has no history tables", operation: "open")
        }
    }

    /// Appends `records` in one transaction.
    package func append(_ records: [HistoryRecord]) throws(SQLiteError) {
        guard !records.isEmpty else { return }
        try connection.transaction { () throws(SQLiteError) in
            let insertEvent = try connection.prepare(
                "INSERT INTO events(time_ms, kind, path, line) VALUES (?, ?, ?, ?)")
            let insertSample = try connection.prepare(
                "INSERT INTO samples(time_ms, path, allocated, apparent, reason) VALUES (?, ?, ?, ?, ?)")
            for record in records {
                switch record {
                case .event(let event):
                    try insertEvent.run([
                        .integer(event.time.millisecondsSinceEpoch), .text(event.kind),
                        event.path.map { .text($0) } ?? .null, .text(event.line),
                    ])
                case .sample(let sample):
                    try insertSample.run([
                        .integer(sample.time.millisecondsSinceEpoch), .text(sample.path),
                        .integer(Int64(clamping: sample.allocated)), .integer(Int64(clamping: sample.apparent)),
                        .text(sample.reason),
                    ])
                }
            }
        }
    }

    /// The events `filter` selects, oldest first.
    package func events(_ filter: HistoryFilter) throws(SQLiteError) -> [HistoryEvent] {
        let query = HistoryQuery.events(filter)
        let rows = try connection.prepare(query.sql).rows(query.parameters) { row in
            HistoryEvent(
                time: WallTime(millisecondsSinceEpoch: row.integer(at: 0)), kind: row.text(at: 1) ?? "",
                path: row.text(at: 2), line: row.text(at: 3) ?? "{}")
        }
        return rows.filter { filter.admits(path: $0.path) }
    }

    /// One directory's samples in the window, oldest first.
    package func samples(path: String, since: WallTime?, until: WallTime?) throws(SQLiteError) -> [HistorySample] {
        let query = HistoryQuery.samples(path: path, since: since, until: until)
        return try connection.prepare(query.sql).rows(query.parameters) { row in
            HistorySample(
                time: WallTime(millisecondsSinceEpoch: row.integer(at: 0)), path: path,
                allocated: UInt64(max(0, row.integer(at: 1))), apparent: UInt64(max(0, row.integer(at: 2))),
                reason: row.text(at: 3) ?? "")
        }
    }

    /// The paths that have samples, for the error naming what `--growth` could show.
    package func sampledPaths(limit: Int = 10) throws(SQLiteError) -> [String] {
        try connection.prepare("SELECT DISTINCT path FROM samples ORDER BY path LIMIT ?").rows([.integer(Int64(limit))])
        {
            $0.text(at: 0) ?? ""
        }
    }

    /// Pages in use, free pages not counted.
    package func usedBytes() throws(SQLiteError) -> UInt64 {
        let pages = try connection.integer("PRAGMA page_count") ?? 0
        let free = try connection.integer("PRAGMA freelist_count") ?? 0
        let size = try connection.integer("PRAGMA page_size") ?? 4096
        // The pragmas' word about a file anyone with access may have edited: saturate.
        return UInt64(max(0, Saturating.product(Saturating.difference(pages, free), max(size, 0))))
    }

    /// Drops what `retention` does not keep; returns how many rows went.
    @discardableResult
    package func applyRetention(_ retention: HistoryRetention, now: WallTime) throws(SQLiteError) -> Int {
        let cutoff = retention.ageCutoff(now: now).millisecondsSinceEpoch
        var dropped = 0
        try connection.transaction { () throws(SQLiteError) in
            for table in ["events", "samples"] {
                try connection.prepare("DELETE FROM \(table) WHERE time_ms < ?").run([.integer(cutoff)])
                dropped += connection.changes
            }
        }
        // Bounded: each pass drops a share of the oldest rows from what it measured.
        for _ in 0..<4 {
            let share = retention.shareToDrop(usedBytes: try usedBytes())
            guard share > 0 else { break }
            try connection.transaction { () throws(SQLiteError) in
                for table in ["events", "samples"] {
                    let count = Int(try connection.integer("SELECT count(*) FROM \(table)") ?? 0)
                    let drop = HistoryRetention.rowsToDrop(share: share, rowCount: count)
                    guard drop > 0 else { continue }
                    try connection.prepare(
                        "DELETE FROM \(table) WHERE id IN (SELECT id FROM \(table) ORDER BY time_ms, id LIMIT ?)"
                    ).run([.integer(Int64(drop))])
                    dropped += connection.changes
                }
            }
            try connection.execute("PRAGMA incremental_vacuum")
        }
        if dropped > 0 {
            try connection.execute("PRAGMA incremental_vacuum")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return dropped
    }
}
