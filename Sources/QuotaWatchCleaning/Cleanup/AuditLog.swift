import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// What an audit record says about why a name was removed.
package struct AuditContext: Sendable, Hashable {
    package var rule: String
    package var trigger: String
    package var cleaner: String
    package var run: String

    package init(rule: String, trigger: String, cleaner: String, run: String) {
        self.rule = rule
        self.trigger = trigger
        self.cleaner = cleaner
        self.run = run
    }
}

/// The audit log of deletions: JSON lines in `audit.jsonl` under the state directory. Before
/// each unlink an intent record is appended and synced (`fdatasync`; a group's intents share
/// one write and one sync, all before the group's first unlink); after it, the outcome.
/// A crash in between leaves an intent without an outcome, which ``recover(using:)`` resolves
/// at the next start. When the intent cannot be written (a full disk), the name is not
/// removed. Rotated by size: `audit.jsonl.1` … `.keep`, the oldest replaced; but never a file
/// that holds records of a run still writing (see ``Settings/keep``): a run's records stay whole
/// until it has ended, and the history imports them after its `cleanup` event.
package final class AuditLog: Sendable {
    package struct Settings: Sendable, Hashable {
        /// Rotate before an intent once the file is this large.
        package var maximumBytes: UInt64
        /// Old files kept, at least: a rotation keeps more while the oldest ones hold records of
        /// a run that has written into the current file (a run larger than `maximumBytes × keep`
        /// would otherwise lose its first deletions' records while it goes on), and drops the
        /// extra ones at the first rotation after that run.
        package var keep: Int

        package init(maximumBytes: UInt64 = 4 << 20, keep: Int = 3) {
            self.maximumBytes = maximumBytes
            self.keep = keep
        }
    }

    package static let fileName = "audit.jsonl"

    /// The log file's path.
    package let path: [UInt8]
    let settings: Settings
    let clock: @Sendable () -> WallTime
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var file: DurableAppendFile
        var sequence: UInt64 = 0
        /// The runs that wrote into each file this process has written: the current file first,
        /// then `.1`, `.2` …; empty for files of an earlier process (their runs have ended).
        var runsByGeneration: [Set<String>] = [[]]
    }

    /// Opens (creating the directory, mode 0700, and the file, 0600) `directory/audit.jsonl`.
    package init(
        directory: [UInt8], settings: Settings = Settings(), clock: @escaping @Sendable () -> WallTime = WallTime.now
    ) throws(AuditLogError) {
        path = directory + Array("/\(Self.fileName)".utf8)
        self.settings = settings
        self.clock = clock
        let file: DurableAppendFile
        do {
            try DurableFile.makeDirectories(directory)
            file = try DurableAppendFile(path: path)
        } catch {
            throw AuditLogError(path: path, errno: error)
        }
        state = Mutex(State(file: file))
    }

    /// A journal for one removal call, recording `context` with every entry.
    package func journal(_ context: AuditContext) -> any DeletionJournal { AuditJournal(log: self, context: context) }

    /// A journal for one group of removals, `contexts[i]` recorded with request `i`.
    package func groupJournal(_ contexts: [AuditContext]) -> any GroupDeletionJournal {
        AuditGroupJournal(log: self, contexts: contexts)
    }

    /// Appends the intent record; returns its sequence number.
    func writeIntent(_ entry: DeletionEntry, context: AuditContext) throws(DeletionJournalError) -> UInt64 {
        try writeIntents([(entry, context)])[0]
    }

    /// Appends the intent records of a group with one write and one `fdatasync`; returns their
    /// sequence numbers in order. Either all are on disk when this returns, or it throws and
    /// none of their names may be removed.
    func writeIntents(
        _ intents: [(entry: DeletionEntry, context: AuditContext)]
    ) throws(DeletionJournalError)
        -> [UInt64]
    {
        let result: Result<[UInt64], Errno> = state.withLock { state in
            let time = clock().iso8601
            var sequences: [UInt64] = []
            var bytes: [UInt8] = []
            for intent in intents {
                state.sequence += 1
                sequences.append(state.sequence)
                let record = AuditRecord.intent(
                    intent.entry, context: intent.context, sequence: state.sequence, time: time)
                bytes += ContractJSON.encode(AuditRecordDocument.intent(record)) + [0x0A]
            }
            do throws(Errno) {
                let writing = Set(intents.map(\.context.run))
                if state.file.size >= settings.maximumBytes {
                    let kept = Self.filesToKeep(
                        settings.keep, runsByGeneration: state.runsByGeneration, writing: writing)
                    try state.file.rotate(keep: kept)
                    state.runsByGeneration.insert([], at: 0)
                    state.runsByGeneration.removeLast(max(0, state.runsByGeneration.count - (kept + 1)))
                }
                try state.file.append(bytes)
                state.runsByGeneration[0].formUnion(writing)
                return .success(sequences)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let sequences): return sequences
        case .failure(let error):
            throw DeletionJournalError(message: AuditLogError(path: path, errno: error).intentMessage)
        }
    }

    /// Appends an outcome record, without a sync of its own (the next intent's sync carries
    /// it). A failure or a crash here is not fatal: the name is already gone (or kept), and
    /// the next start resolves the intent.
    func writeOutcome(path entryPath: [UInt8], run: String, sequence: UInt64, result: String) {
        let record = AuditRecordDocument.outcome(
            .init(
                sequence: sequence, run: run, path: EscapedName.string(entryPath), result: result,
                time: clock().iso8601))
        state.withLock { state in
            try? state.file.append(ContractJSON.encode(record) + [0x0A], synced: false)
            state.runsByGeneration[0].insert(run)
        }
    }

    /// How many old files a rotation keeps: `keep`, or more while the oldest hold records of a
    /// run that is writing now or wrote into the current file (`runsByGeneration[0]`), which is
    /// still going on or has just ended; every file between them holds that run's records too.
    static func filesToKeep(_ keep: Int, runsByGeneration: [Set<String>], writing: Set<String>) -> Int {
        let current = runsByGeneration.first ?? []
        let going = current.union(writing)
        // The file at `.index` becomes `.index+1`; the current one becomes `.1`.
        let oldestOfARun = runsByGeneration.indices.last { index in
            index == 0 ? !current.isDisjoint(with: writing) : !runsByGeneration[index].isDisjoint(with: going)
        }
        return max(keep, oldestOfARun.map { $0 + 1 } ?? 0)
    }

    /// More than a log ever holds between rotations (4 MiB by default): a read's buffer is as
    /// large as its limit, so a log made huge (sparse) by someone else is not read whole.
    static let largestRead: UInt64 = 256 << 20

    /// The current log file's bytes (recovery reads them).
    func currentContents() throws(Errno) -> [UInt8] {
        let size = state.withLock { $0.file.size }
        return try SmallFile.read(bytes: path, limit: Int(clamping: min(size, Self.largestRead)) + 1 << 16)
    }
}

/// The journal one removal call writes through.
final class AuditJournal: DeletionJournal {
    let log: AuditLog
    let context: AuditContext
    private var pendingSequence: UInt64 = 0

    init(log: AuditLog, context: AuditContext) {
        self.log = log
        self.context = context
    }

    func recordIntent(_ entry: DeletionEntry) throws(DeletionJournalError) {
        pendingSequence = try log.writeIntent(entry, context: context)
    }

    func recordOutcome(_ entry: DeletionEntry, failure: SkipReason?) {
        let result = failure.map { "skipped: \($0.code)" } ?? "removed"
        log.writeOutcome(path: entry.path, run: context.run, sequence: pendingSequence, result: result)
    }
}

/// The journal of one group of removals, each with its own context.
final class AuditGroupJournal: GroupDeletionJournal {
    let log: AuditLog
    let contexts: [AuditContext]
    private var sequences: [Int: UInt64] = [:]

    init(log: AuditLog, contexts: [AuditContext]) {
        self.log = log
        self.contexts = contexts
    }

    func recordIntents(_ entries: [(request: Int, entry: DeletionEntry)]) throws(DeletionJournalError) {
        let written = try log.writeIntents(entries.map { ($0.entry, contexts[$0.request]) })
        for (entry, sequence) in zip(entries, written) { sequences[entry.request] = sequence }
    }

    func recordOutcome(request: Int, entry: DeletionEntry, failure: SkipReason?) {
        let result = failure.map { "skipped: \($0.code)" } ?? "removed"
        log.writeOutcome(
            path: entry.path, run: contexts[request].run, sequence: sequences[request] ?? 0, result: result)
    }

    func single(request: Int) -> any DeletionJournal { log.journal(contexts[request]) }
}

/// The audit records' shape (``AuditRecordDocument``) from what the deleter knows.
enum AuditRecord {
    static func intent(
        _ entry: DeletionEntry, context: AuditContext, sequence: UInt64, time: String
    ) -> AuditRecordDocument.Intent {
        AuditRecordDocument.Intent(
            sequence: sequence, run: context.run, path: EscapedName.string(entry.path),
            device: entry.identity.device, inode: entry.identity.inode, bytes: entry.allocatedBytes,
            kind: entry.kind == .directory ? "directory" : entry.kind == .symlink ? "symlink" : "file",
            rule: context.rule, trigger: context.trigger, cleaner: context.cleaner, time: time)
    }
}

/// The audit log could not be opened or written.
package struct AuditLogError: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: [UInt8]
    package var errno: Errno

    /// What went wrong, without the way out: that depends on who asked (the daemon's
    /// `--clean`, or `clean --yes`).
    package var reason: String { "cannot open the audit log '\(HumanText.name(path))': \(errno)" }

    package var description: String { reason + "; set STATE_DIRECTORY to a writable directory, or run without --clean" }

    /// What a cleaner reports when an intent could not be recorded: the log, the error by its
    /// C name too (what a user searches for), and the two ways out.
    var intentMessage: String {
        let symbol = Self.symbol(errno).map { " (\($0))" } ?? ""
        return "cannot write the audit record to '\(HumanText.name(path))': \(errno)\(symbol); "
            + "nothing was deleted. Free space on that file system, or set STATE_DIRECTORY to a directory "
            + "on another one (for the daemon: restart it with that STATE_DIRECTORY)"
    }

    /// The C names of the errors a full or failing state directory gives.
    static func symbol(_ errno: Errno) -> String? {
        switch errno.rawValue {
        case ENOSPC: "ENOSPC"
        case EDQUOT: "EDQUOT"
        case EROFS: "EROFS"
        case EIO: "EIO"
        case EACCES: "EACCES"
        case EFBIG: "EFBIG"
        default: nil
        }
    }
}
