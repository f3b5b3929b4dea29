import Foundation
import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@Suite("Audit log: durable intents, outcomes, rotation, recovery")
struct AuditLogTests {
    static let fixedTime: @Sendable () -> WallTime = { WallTime(millisecondsSinceEpoch: 1_800_000_000_000) }

    struct Setup {
        let tree: TempTree
        let root: FileDescriptor
        let deleter: Deleter
        let state: [UInt8]

        init() throws {
            tree = try TempTree()
            try tree.makeDirectory("root")
            try tree.makeDirectory("state")
            root = try FileDescriptor.currentWorkingDirectory.openDirectory(tree.absoluteBytes("root"))
            deleter = try Deleter(
                root: root, dryRun: false, isProtected: { _ in false }, openWriter: { _ throws(Errno) in .noWriter })
            state = tree.absoluteBytes("state/quotawatch")
        }

        func identity(_ path: String) throws -> FileIdentity {
            FileIdentity(try root.status(of: Array(path.utf8)))
        }

        func lines(_ log: AuditLog) throws -> [[String: Any]] {
            let data = try Data(contentsOf: URL(fileURLWithPath: String(decoding: log.path, as: UTF8.self)))
            // A torn line (left by a crash) is not JSON and is skipped, as recovery skips it.
            return data.split(separator: UInt8(ascii: "\n")).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
            }
        }
    }

    /// Reads the log file from disk the moment the intent is recorded, while the name is
    /// still there: the intent is written before the unlink, not after.
    final class PeekingJournal: DeletionJournal {
        let inner: any DeletionJournal
        let logPath: String
        let rootPath: String
        var seenAtIntent: [(logHasIntent: Bool, fileStillThere: Bool)] = []

        init(inner: any DeletionJournal, logPath: String, rootPath: String) {
            self.inner = inner
            self.logPath = logPath
            self.rootPath = rootPath
        }

        func recordIntent(_ entry: DeletionEntry) throws(DeletionJournalError) {
            try inner.recordIntent(entry)
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            let hasIntent = text.contains("\"inode\":\(entry.identity.inode)") && text.contains("\"record\":\"intent\"")
            let path = rootPath + "/" + String(decoding: entry.path, as: UTF8.self)
            seenAtIntent.append((hasIntent, FileManager.default.fileExists(atPath: path)))
        }

        func recordOutcome(_ entry: DeletionEntry, failure: SkipReason?) {
            inner.recordOutcome(entry, failure: failure)
        }
    }

    @Test("the intent is on disk before the unlink, the outcome after; records carry every field")
    func intentThenOutcome() throws {
        let setup = try Setup()
        try setup.tree.writeFile("root/\u{e9}t\u{e9}.bin", byteCount: 9000)
        let identity = try setup.identity("\u{e9}t\u{e9}.bin")
        let log = try AuditLog(directory: setup.state, clock: Self.fixedTime)
        let context = AuditContext(rule: "cfnetwork-download", trigger: "leftover", cleaner: "leftovers", run: "r-1")
        let journal = PeekingJournal(
            inner: log.journal(context), logPath: String(decoding: log.path, as: UTF8.self),
            rootPath: setup.tree.absolutePath("root"))
        let outcome = setup.deleter.remove(Array("\u{e9}t\u{e9}.bin".utf8), expecting: identity, journal: journal)
        guard case .removed = outcome else {
            Issue.record("not removed: \(outcome)")
            return
        }
        #expect(journal.seenAtIntent.count == 1)
        #expect(journal.seenAtIntent.first?.logHasIntent == true)
        #expect(journal.seenAtIntent.first?.fileStillThere == true)
        let lines = try setup.lines(log)
        #expect(lines.count == 2)
        #expect(lines[0]["record"] as? String == "intent")
        #expect(lines[0]["path"] as? String == "\u{e9}t\u{e9}.bin")
        #expect((lines[0]["inode"] as? NSNumber)?.uint64Value == identity.inode)
        #expect((lines[0]["device"] as? NSNumber)?.uint64Value == identity.device)
        #expect(((lines[0]["bytes"] as? NSNumber)?.uint64Value ?? 0) >= 9000)
        #expect(lines[0]["rule"] as? String == "cfnetwork-download")
        #expect(lines[0]["trigger"] as? String == "leftover")
        #expect(lines[0]["cleaner"] as? String == "leftovers")
        #expect(lines[0]["run"] as? String == "r-1")
        #expect(lines[0]["time"] as? String == "2027-01-15T08:00:00.000Z")
        #expect(lines[1]["record"] as? String == "outcome")
        #expect(lines[1]["result"] as? String == "removed")
        #expect(lines[1]["seq"] as? NSNumber == lines[0]["seq"] as? NSNumber)
    }

    @Test("a dangling intent is resolved at start: gone or present, and recorded so")
    func recovery() throws {
        let setup = try Setup()
        try setup.tree.writeFile("root/gone", byteCount: 100)
        try setup.tree.writeFile("root/kept", byteCount: 100)
        let gone = try setup.identity("gone")
        let kept = try setup.identity("kept")
        let log = try AuditLog(directory: setup.state, clock: Self.fixedTime)
        let context = AuditContext(rule: "r", trigger: "manual", cleaner: "c", run: "crashed")
        for (path, identity) in [("gone", gone), ("kept", kept)] {
            // An intent without an outcome: what kill -9 between the two leaves.
            try log.journal(context).recordIntent(
                DeletionEntry(
                    path: Array(path.utf8), identity: identity, kind: .regular, allocatedBytes: 4096, linkCount: 1))
        }
        try FileManager.default.removeItem(atPath: setup.tree.absolutePath("root/gone"))
        // A torn last line, as a crash in the middle of a write leaves it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: String(decoding: log.path, as: UTF8.self)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"record\":\"intent\",\"path\":\"x".utf8))
        try handle.close()

        let reopened = try AuditLog(directory: setup.state, clock: Self.fixedTime)
        let recovered = try reopened.recover(using: setup.deleter)
        #expect(recovered.map { String(decoding: $0.path, as: UTF8.self) } == ["gone", "kept"])
        #expect(recovered.map(\.present) == [false, true])
        let results = try setup.lines(reopened).suffix(2).map { $0["result"] as? String }
        #expect(results == ["recovered: gone", "recovered: present"])
        #expect(try reopened.recover(using: setup.deleter).isEmpty)
    }

    @Test("a group's intents are all on disk, by one write, before its first unlink; outcomes follow")
    func groupIntentsBeforeUnlinks() throws {
        let setup = try Setup()
        var removals: [GroupedRemoval] = []
        for index in 0..<40 {
            try setup.tree.writeFile(TreePath("root/f\(index)"), byteCount: 100)
            removals.append(GroupedRemoval(path: Array("f\(index)".utf8), identity: try setup.identity("f\(index)")))
        }
        let log = try AuditLog(directory: setup.state, clock: Self.fixedTime)
        let contexts = (0..<40).map {
            AuditContext(rule: "r\($0 % 3)", trigger: "quota_breach", cleaner: "evict", run: "g")
        }
        let journal = PeekingGroupJournal(inner: log.groupJournal(contexts), setup: setup, log: log)
        let outcomes = setup.deleter.removeGroup(removals, journal: journal)
        #expect(outcomes.allSatisfy { if case .removed = $0 { true } else { false } })
        #expect(journal.seen.count == 1)
        #expect(journal.seen.first?.intents == 40)
        #expect(journal.seen.first?.filesThere == 40)
        let lines = try setup.lines(log)
        #expect(lines.count == 80)
        #expect(lines.prefix(40).allSatisfy { $0["record"] as? String == "intent" })
        #expect(lines.prefix(40).map { $0["rule"] as? String } == contexts.map(\.rule))
        #expect(lines.suffix(40).allSatisfy { $0["result"] as? String == "removed" })
        #expect(lines.suffix(40).map { $0["seq"] as? NSNumber } == lines.prefix(40).map { $0["seq"] as? NSNumber })
    }

    /// Reads the log file from disk the moment a group's intents are recorded.
    final class PeekingGroupJournal: GroupDeletionJournal {
        let inner: any GroupDeletionJournal
        let setup: Setup
        let log: AuditLog
        var seen: [(intents: Int, filesThere: Int)] = []

        init(inner: any GroupDeletionJournal, setup: Setup, log: AuditLog) {
            self.inner = inner
            self.setup = setup
            self.log = log
        }

        func recordIntents(_ entries: [(request: Int, entry: DeletionEntry)]) throws(DeletionJournalError) {
            try inner.recordIntents(entries)
            let intents = ((try? setup.lines(log)) ?? []).filter { $0["record"] as? String == "intent" }.count
            let there = entries.filter {
                FileManager.default.fileExists(
                    atPath: setup.tree.absolutePath(TreePath("root/" + String(decoding: $0.entry.path, as: UTF8.self))))
            }.count
            seen.append((intents, there))
        }

        func recordOutcome(request: Int, entry: DeletionEntry, failure: SkipReason?) {
            inner.recordOutcome(request: request, entry: entry, failure: failure)
        }

        func single(request: Int) -> any DeletionJournal { inner.single(request: request) }
    }

    @Test("a crash in the middle of a group: every name gone has an intent, recovery resolves each")
    func groupRecovery() throws {
        let setup = try Setup()
        var entries: [(request: Int, entry: DeletionEntry)] = []
        for index in 0..<30 {
            try setup.tree.writeFile(TreePath("root/f\(index)"), byteCount: 100)
            let entry = DeletionEntry(
                path: Array("f\(index)".utf8), identity: try setup.identity("f\(index)"), kind: .regular,
                allocatedBytes: 4096, linkCount: 1)
            entries.append((index, entry))
        }
        let contexts = (0..<30).map { _ in
            AuditContext(rule: "r", trigger: "quota_breach", cleaner: "evict", run: "crashed")
        }
        do {
            let log = try AuditLog(directory: setup.state, clock: Self.fixedTime)
            let journal = log.groupJournal(contexts)
            // One sync for the group's intents, then the unlinks: the process dies after the
            // twentieth, and of the outcomes (written without a sync of their own) only the
            // first five reached the disk.
            try journal.recordIntents(entries)
            for (request, entry) in entries.prefix(20) {
                try FileManager.default.removeItem(atPath: setup.tree.absolutePath(TreePath("root/f\(request)")))
                if request < 5 { journal.recordOutcome(request: request, entry: entry, failure: nil) }
            }
        }
        // A torn last line: the crash cut an outcome in half.
        let handle = try FileHandle(
            forWritingTo: URL(fileURLWithPath: setup.tree.absolutePath("state/quotawatch/audit.jsonl")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"record\":\"outcome\",\"seq\":6".utf8))
        try handle.close()

        let reopened = try AuditLog(directory: setup.state, clock: Self.fixedTime)
        let lines = try setup.lines(reopened)
        let intents = Set(lines.filter { $0["record"] as? String == "intent" }.compactMap { $0["path"] as? String })
        for index in 0..<30
        where !FileManager.default.fileExists(atPath: setup.tree.absolutePath(TreePath("root/f\(index)"))) {
            #expect(intents.contains("f\(index)"), "f\(index) is gone without an intent")
        }
        let recovered = try reopened.recover(using: setup.deleter)
        #expect(recovered.map { String(decoding: $0.path, as: UTF8.self) } == (5..<30).map { "f\($0)" })
        #expect(recovered.map(\.present) == (5..<30).map { $0 >= 20 })
        #expect(try reopened.recover(using: setup.deleter).isEmpty)
    }

    @Test("rotation by size keeps N old files and never loses the current record")
    func rotation() throws {
        let setup = try Setup()
        let log = try AuditLog(
            directory: setup.state, settings: AuditLog.Settings(maximumBytes: 600, keep: 2), clock: Self.fixedTime)
        for index in 0..<20 {
            // A run each: one run's records are kept whole (rotationKeepsARunWhole).
            let journal = log.journal(AuditContext(rule: "r", trigger: "t", cleaner: "c", run: "run-\(index)"))
            let entry = DeletionEntry(
                path: Array("file-\(index)".utf8), identity: FileIdentity(device: 1, inode: UInt64(index)),
                kind: .regular, allocatedBytes: 1, linkCount: 1)
            try journal.recordIntent(entry)
            journal.recordOutcome(entry, failure: nil)
        }
        let base = String(decoding: log.path, as: UTF8.self)
        #expect(FileManager.default.fileExists(atPath: base + ".1"))
        #expect(FileManager.default.fileExists(atPath: base + ".2"))
        #expect(!FileManager.default.fileExists(atPath: base + ".3"))
        let current = try String(contentsOfFile: base, encoding: .utf8)
        #expect(current.contains("file-19"))
        let size = try FileManager.default.attributesOfItem(atPath: base)[.size] as? Int ?? 0
        #expect(size < 600 + 400)
    }

    @Test("a run larger than the rotated files keeps every record until it has ended; the next run trims back to N")
    func rotationKeepsARunWhole() throws {
        let setup = try Setup()
        let log = try AuditLog(
            directory: setup.state, settings: AuditLog.Settings(maximumBytes: 600, keep: 2), clock: Self.fixedTime)
        let base = String(decoding: log.path, as: UTF8.self)
        func files() -> [String] {
            var names = [base]
            var generation = 1
            while FileManager.default.fileExists(atPath: base + ".\(generation)") {
                names.append(base + ".\(generation)")
                generation += 1
            }
            return names
        }
        func write(run: String, count: Int) throws {
            let journal = log.journal(AuditContext(rule: "r", trigger: "t", cleaner: "c", run: run))
            for index in 0..<count {
                let entry = DeletionEntry(
                    path: Array("\(run)-file-\(index)".utf8), identity: FileIdentity(device: 1, inode: UInt64(index)),
                    kind: .regular, allocatedBytes: 1, linkCount: 1)
                try journal.recordIntent(entry)
                journal.recordOutcome(entry, failure: nil)
            }
        }
        func records(of run: String) throws -> Set<String> {
            var found: Set<String> = []
            for file in files() {
                for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
                where line.contains("\"record\":\"intent\"") && line.contains("\"run\":\"\(run)\"") {
                    if let range = line.range(of: "\(run)-file-[0-9]+", options: .regularExpression) {
                        found.insert(String(line[range]))
                    }
                }
            }
            return found
        }
        // 60 names: about 15 rotations of 600 B, far more than 2 old files hold.
        try write(run: "big", count: 60)
        #expect(try records(of: "big") == Set((0..<60).map { "big-file-\($0)" }))
        #expect(files().count > 3)
        // Later runs of one name each rotate past the big one's files: back to the current file
        // and 2 old ones.
        for index in 0..<20 { try write(run: "small-\(index)", count: 1) }
        #expect(files().count == 3)
        #expect(try records(of: "small-19") == ["small-19-file-0"])
    }

    @Test("the state directory: STATE_DIRECTORY, root's /var/lib, XDG_STATE_HOME, then HOME; one per root")
    func stateDirectory() {
        let root = Array("/data/app".utf8)
        let name = String(decoding: SocketPath.socketName(forRoot: root), as: UTF8.self)
        func path(_ environment: [String: String], _ userID: UInt32) -> String? {
            StateDirectory.forRoot(root, environment: environment, userID: userID).map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        #expect(path(["STATE_DIRECTORY": "/srv/state:/other", "HOME": "/home/a"], 1000) == "/srv/state/\(name)")
        #expect(path(["HOME": "/root"], 0) == "/var/lib/quotawatch/\(name)")
        #expect(path(["XDG_STATE_HOME": "/x/state", "HOME": "/home/a"], 1000) == "/x/state/quotawatch/\(name)")
        #expect(
            path(["XDG_STATE_HOME": "relative", "HOME": "/home/a"], 1000) == "/home/a/.local/state/quotawatch/\(name)")
        #expect(path([:], 1000) == nil)
    }

    @Test("the app version is persisted; a new one triggers, the same one does not")
    func appVersion() throws {
        let setup = try Setup()
        let store = AppVersionStore(stateDirectory: setup.state)
        #expect(store.lastSeen() == nil)
        #expect(store.trigger(for: "1.0") == .appVersion(old: nil, new: "1.0"))
        try store.record("1.0")
        #expect(store.trigger(for: "1.0") == nil)
        #expect(AppVersionStore(stateDirectory: setup.state).trigger(for: "1.1") == .appVersion(old: "1.0", new: "1.1"))
    }

    @Test("CFBundleShortVersionString from an XML plist and from a binary one")
    func plistVersion() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.app</string>
            <key>CFBundleShortVersionString</key><string>4.2.1</string>
            </dict></plist>
            """
        #expect(AppVersion.shortVersion(plist: Array(xml.utf8)) == "4.2.1")
        let binary = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleShortVersionString": "5.0", "CFBundleVersion": "500"], format: .binary,
            options: 0)
        #expect(binary.starts(with: Array("bplist00".utf8)))
        #expect(AppVersion.shortVersion(plist: Array(binary)) == "5.0")
        #expect(AppVersion.shortVersion(plist: Array("not a plist".utf8)) == nil)
        let setup = try Setup()
        try setup.tree.writeFile("Info.plist", contents: Array(binary))
        #expect(try AppVersion.read(.infoPlist(path: setup.tree.absoluteBytes("Info.plist"))) == "5.0")
        #expect(throws: AppVersionError.self) {
            try AppVersion.read(.infoPlist(path: setup.tree.absoluteBytes("none")))
        }
        // A FIFO where the config says Info.plist is: refused at once, naming what it is.
        try setup.tree.makeFIFO("fifo.plist")
        let fifo = #expect(throws: AppVersionError.self) {
            try AppVersion.read(.infoPlist(path: setup.tree.absoluteBytes("fifo.plist")))
        }
        #expect("\(fifo.map { "\($0)" } ?? "")".contains("FIFO"), "\(String(describing: fifo))")
    }
}
