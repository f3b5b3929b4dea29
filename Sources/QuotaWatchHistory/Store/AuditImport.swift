import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Imports the cleaners' audit log (`audit.jsonl` and its rotated files, the source of truth
/// for deletions) into the history: each intent becomes a `deletion` event, and its outcome
/// record sets the event's `result` (`pending` until then).
///
/// Incremental and exactly once: the history remembers the current file's device, inode and
/// the offset after the last complete line imported, in the same transaction as the rows. Each
/// intent's row is keyed by where its record lies (device, inode, offset), which rotation (a
/// rename) does not change, so a file read twice adds nothing.
package struct AuditImport {
    package static let fileName = "audit.jsonl"
    /// Rotated files looked at: `audit.jsonl.1` … up to the first missing one. The log keeps 3,
    /// and more while one run's records fill them (a 60 000-name run writes about 8 of 4 MiB);
    /// the bound only stops a directory stuffed with names by someone else.
    static let rotatedFilesLooked = 100_000
    let directory: [UInt8]

    package init(stateDirectory: [UInt8]) { directory = stateDirectory }

    private func path(_ rotation: Int) -> [UInt8] {
        directory + Array("/\(Self.fileName)".utf8) + (rotation == 0 ? [] : Array(".\(rotation)".utf8))
    }

    /// Imports what is new since the last call (or the last run); returns how many records.
    @discardableResult
    package func run(into store: HistoryStore) throws(SQLiteError) -> Int {
        let connection = store.connection
        guard let current = try? FileDescriptor.currentWorkingDirectory.status(of: path(0)) else { return 0 }
        let saved = try connection.prepare("SELECT device, inode, offset FROM audit_import WHERE id = 1").rows {
            (
                device: UInt64(bitPattern: $0.integer(at: 0)), inode: UInt64(bitPattern: $0.integer(at: 1)),
                offset: UInt64(max(0, $0.integer(at: 2)))
            )
        }.first
        // The files to read, oldest first, each from an offset.
        var plan: [(rotation: Int, from: UInt64)] = []
        if let saved, saved.device == current.device, saved.inode == current.inode {
            plan = [(0, saved.offset <= current.apparentBytes ? saved.offset : 0)]
        } else {
            var rotated: [(Int, FileStatus)] = []
            for rotation in 1...Self.rotatedFilesLooked {
                guard let status = try? FileDescriptor.currentWorkingDirectory.status(of: path(rotation)) else { break }
                rotated.append((rotation, status))
            }
            // Rotated since the last import: the rest of the file it was reading, then newer ones.
            let known = rotated.first { saved != nil && $0.1.device == saved!.device && $0.1.inode == saved!.inode }
            for (rotation, _) in rotated.reversed() {
                if let known, rotation > known.0 { continue }
                plan.append((rotation, known?.0 == rotation ? saved!.offset : 0))
            }
            plan.append((0, 0))
        }
        var imported = 0
        for (rotation, offset) in plan {
            // The read's buffer is as large as its limit: the file's size, and room for what
            // the cleaners append meanwhile (a partial last line is left for the next import).
            guard let status = try? FileDescriptor.currentWorkingDirectory.status(of: path(rotation)),
                status.apparentBytes > offset,
                status.kind == .regular,
                let bytes = try? SmallFile.read(
                    bytes: path(rotation), limit: Int(clamping: min(status.apparentBytes, 256 << 20)) + 65_536)
            else { continue }
            guard let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n")), UInt64(lastNewline) >= offset else {
                continue
            }
            let end = UInt64(lastNewline) + 1
            try connection.transaction { () throws(SQLiteError) in
                imported += try importLines(
                    bytes[Int(offset)..<Int(end)], startingAt: offset, file: status, into: connection)
                if rotation == 0 {
                    try connection.prepare(
                        "INSERT OR REPLACE INTO audit_import(id, device, inode, offset) VALUES (1, ?, ?, ?)"
                    ).run([
                        .integer(Int64(bitPattern: status.device)), .integer(Int64(bitPattern: status.inode)),
                        .integer(Int64(end)),
                    ])
                }
            }
        }
        return imported
    }

    private func importLines(
        _ bytes: ArraySlice<UInt8>, startingAt start: UInt64, file: FileStatus, into connection: SQLiteConnection
    ) throws(SQLiteError) -> Int {
        let insert = try connection.prepare(
            """
            INSERT OR IGNORE INTO events(time_ms, kind, path, line, audit_key, audit_run, audit_seq)
            VALUES (?, 'deletion', ?, ?, ?, ?, ?)
            """)
        let find = try connection.prepare(
            "SELECT id, line FROM events WHERE audit_run = ? AND audit_seq = ? ORDER BY id DESC LIMIT 1")
        let update = try connection.prepare("UPDATE events SET line = ? WHERE id = ?")
        var offset = start
        var count = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            defer { offset += UInt64(line.count) + 1 }
            guard !line.isEmpty, let record = AuditRecordLine(Array(line)) else { continue }
            count += 1
            switch record.record {
            case .intent:
                let key = "\(file.device):\(file.inode):\(offset)"
                guard let line = record.deletionLine(result: "pending") else { continue }
                try insert.run([
                    .integer(record.time?.millisecondsSinceEpoch ?? 0), record.path.map { .text($0) } ?? .null,
                    .text(line), .text(key), .text(record.run), .integer(Int64(bitPattern: record.sequence)),
                ])
            case .outcome:
                let found = try find.rows([.text(record.run), .integer(Int64(bitPattern: record.sequence))]) {
                    (id: $0.integer(at: 0), line: $0.text(at: 1) ?? "{}")
                }
                guard let row = found.first, let result = record.result,
                    let updated = AuditRecordLine.withResult(row.line, result)
                else { continue }
                try update.run([.text(updated), .integer(row.id)])
            }
        }
        return count
    }
}
