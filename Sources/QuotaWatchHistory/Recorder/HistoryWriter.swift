import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The recorder's thread: takes what the engine queued, writes it in one transaction per batch,
/// imports the audit log after each cleanup run, and applies retention.
///
/// When the database cannot be written it degrades instead of failing:
/// - locked by another process (busy past the timeout), unwritable or missing its directory:
///   the batch stays in memory (it counts against the queue's bound, beyond which new events
///   are dropped and counted) and is tried again after 2 s, doubling up to a minute; stderr
///   says so once, and again when writing resumes, and a `history_dropped` event records what
///   was lost;
/// - not a database, or damaged (`SQLITE_NOTADB`, `SQLITE_CORRUPT`): the file is moved aside
///   as `history.sqlite.corrupt-<time>` (its WAL with it), a new database is started with a
///   `history_reset` event naming it, and the audit log is imported again from its start.
final class HistoryWriter {
    private let settings: HistorySettings
    private let queue: HistoryQueue
    private let report: @Sendable (String) -> Void
    private var store: HistoryStore?
    /// Taken from the queue, not yet written.
    private var pending: [HistoryItem] = []
    private var resetEvents: [HistoryEvent] = []
    private var failure: SQLiteError?
    private var retryAt: ContinuousClock.Instant?
    private var retryDelay: Duration
    private var nextHousekeeping = ContinuousClock.now
    private var importWanted = true
    private var droppedRecorded: UInt64 = 0
    private var droppedWarned: UInt64 = 0

    init(settings: HistorySettings, queue: HistoryQueue, report: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.queue = queue
        self.report = report
        retryDelay = settings.retryAfter
    }

    private var path: String { HumanText.name(settings.databasePath) }

    func run() {
        while true {
            let deadline = min(nextHousekeeping, retryAt ?? nextHousekeeping)
            let taken = queue.take(waitingUntil: deadline)
            pending += taken.items
            if taken.items.contains(where: Self.isCleanup) { importWanted = true }
            if taken.dropped > droppedWarned, droppedWarned == droppedRecorded {
                report("\(taken.dropped - droppedRecorded) event(s) dropped: \(queue.capacity) are waiting for \(path)")
                droppedWarned = taken.dropped
            }
            if taken.closed || retryAt.map({ ContinuousClock.now >= $0 }) ?? true {
                attempt(dropped: taken.dropped)
            }
            if taken.closed {
                if !pending.isEmpty {
                    report(
                        "\(pending.count) event(s) and sample(s) not recorded at exit: \(failure?.description ?? "")")
                }
                store = nil
                return
            }
        }
    }

    private func attempt(dropped: UInt64) {
        do {
            let store = try openedStore()
            let root = settings.root
            var records = resetEvents.map(HistoryRecord.event) + pending.map { Self.record($0, root: root) }
            let now = WallTime.now()
            if dropped > droppedRecorded {
                let line = ContractJSON.encodedString(
                    ContractEvent(.historyDropped(dropped: dropped - droppedRecorded), root: root, time: now.iso8601))
                records.append(.event(HistoryEvent(time: now, kind: "history_dropped", path: nil, line: line)))
            }
            try store.append(records)
            queue.finished(pending.count)
            pending.removeAll(keepingCapacity: true)
            resetEvents.removeAll()
            if let failure {
                let lost = dropped - droppedRecorded
                report(
                    "writing to \(path) again after: \(failure)" + (lost > 0 ? "; \(lost) event(s) were dropped" : ""))
                self.failure = nil
            }
            droppedRecorded = dropped
            droppedWarned = dropped
            retryAt = nil
            retryDelay = settings.retryAfter
            if importWanted {
                try AuditImport(stateDirectory: settings.stateDirectory).run(into: store)
                importWanted = false
            }
            if ContinuousClock.now >= nextHousekeeping {
                try store.applyRetention(settings.retention, now: now)
                importWanted = true
                nextHousekeeping =
                    ContinuousClock.now + settings.housekeepingEvery
            }
        } catch {
            degrade(error)
        }
    }

    private func openedStore() throws(SQLiteError) -> HistoryStore {
        if let store { return store }
        do {
            try DurableFile.makeDirectories(settings.stateDirectory)
        } catch {
            throw SQLiteError(
                code: SQLiteError.cannotOpen, message: "cannot create the state directory: \(error)", operation: "open")
        }
        let opened = try HistoryStore(
            writingTo: settings.databasePath, busyTimeoutMilliseconds: settings.busyTimeoutMilliseconds)
        store = opened
        return opened
    }

    private func degrade(_ error: SQLiteError) {
        store = nil
        if error.isCorrupt, let movedTo = moveAside() {
            report("\(path) is not a usable database (\(error)); moved it to \(movedTo) and started a new one")
            let now = WallTime.now()
            let line = ContractJSON.encodedString(
                ContractEvent(
                    .historyReset(movedTo: movedTo, reason: error.description), root: settings.root,
                    time: now.iso8601))
            resetEvents.append(HistoryEvent(time: now, kind: "history_reset", path: nil, line: line))
            importWanted = true
            retryAt = ContinuousClock.now
            return
        }
        if failure == nil {
            report(
                "cannot write \(path): \(error); keeping up to \(queue.capacity) events in memory and trying again "
                    + "every few seconds (the daemon goes on); make that directory writable or free space on "
                    + "its file system, point --state-dir (or STATE_DIRECTORY) at another, or run with --no-history")
        }
        failure = error
        retryAt = ContinuousClock.now + retryDelay
        retryDelay = min(retryDelay * 2, .seconds(60))
    }

    /// Renames the database (and its WAL) to `<name>.corrupt-<UTC time>`; nil when it cannot.
    private func moveAside() -> String? {
        let stamp = WallTime.now().iso8601.filter { $0.isNumber || $0 == "T" }
        let target = settings.databasePath + Array(".corrupt-\(stamp)".utf8)
        do {
            try DurableFile.rename(settings.databasePath, to: target)
        } catch {
            report("cannot move the damaged \(path) aside: \(error)")
            return nil
        }
        try? DurableFile.rename(settings.databasePath + Array("-wal".utf8), to: target + Array("-wal".utf8))
        try? FileDescriptor.currentWorkingDirectory.unlink(settings.databasePath + Array("-shm".utf8))
        return EscapedName.string(target)
    }

    private static func isCleanup(_ item: HistoryItem) -> Bool {
        if case .event(.engine(.cleanup), _) = item { return true }
        return false
    }

    static func record(_ item: HistoryItem, root: String) -> HistoryRecord {
        switch item {
        case .sample(let sample): return .sample(sample)
        case .event(let event, let time):
            let line = event.jsonLine(root: root)
            switch event {
            case .policy(let policy):
                return .event(
                    HistoryEvent(
                        time: policy.time, kind: policy.kind, path: policy.path.map(EscapedName.string), line: line))
            case .engine(.cleanup(let summary)) where summary.dryRun:
                // Removed nothing: a kind of its own, so that `--event cleanup` lists what deleted.
                return .event(HistoryEvent(time: time, kind: HistoryQuery.dryRunCleanupKind, path: nil, line: line))
            case .engine:
                return .event(HistoryEvent(time: time, kind: Self.kind(of: line), path: nil, line: line))
            }
        }
    }

    /// The `event` field of an engine event's line (every line has one, keys sorted).
    static func kind(of line: String) -> String {
        guard let start = line.range(of: "\"event\":\"") else { return "unknown" }
        let rest = line[start.upperBound...]
        return String(rest.prefix { $0 != "\"" })
    }
}
