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

@Suite("Built-in cleaners over test doubles")
struct BuiltInCleanerTests {
    /// Removes every name except those listed, which it reports as open for writing.
    final class SelectiveBackend: RemovalBackend {
        let refuse: Set<[UInt8]>
        private let asked = Mutex<[[UInt8]]>([])

        init(refuse: Set<[UInt8]> = []) { self.refuse = refuse }

        var requested: [[UInt8]] { asked.withLock { $0 } }

        func remove(_ request: RemovalRequest) -> DeletionOutcome {
            asked.withLock { $0.append(request.path) }
            if refuse.contains(request.path) { return .skipped(.openForWriting(processID: 42)) }
            var removal = Removal(dryRun: false)
            removal.freedBytes = 1
            return .removed(removal)
        }
    }

    private func context(
        _ candidates: [CleanupCandidate], directory: CleanupDirectory?, backend: any RemovalBackend,
        trigger: CleanupTrigger = .manual("test")
    ) -> CleanupContext {
        CleanupContext(
            trigger: trigger, inputs: CleanupInputs(level: .normal, directory: directory, candidates: candidates),
            dryRun: false, remover: Remover(backend: backend, trigger: trigger.name, cleaner: "test", run: "run-1"),
            runID: "run-1")
    }

    private func candidate(
        _ path: String, inode: UInt64, bytes: UInt64, modified: Int64, links: UInt64 = 1, names: [String]? = nil
    )
        -> CleanupCandidate
    {
        CleanupCandidate(
            path: Array(path.utf8), device: 9, inode: inode, allocatedBytes: bytes, apparentBytes: bytes,
            modifiedNanoseconds: modified, linkCount: links, namesInDirectory: names.map { $0.map { Array($0.utf8) } },
            rule: "Library/Caches/*")
    }

    @Test("eviction frees a hard-linked inode only when all its names went; the freed total matches")
    func evictionWithHardLinks() throws {
        let candidates = [
            candidate("a", inode: 1, bytes: 4000, modified: 1, links: 2, names: ["a", "b"]),
            candidate("b", inode: 1, bytes: 4000, modified: 1, links: 2, names: ["a", "b"]),
            candidate("c", inode: 2, bytes: 3000, modified: 2),
            candidate("d", inode: 3, bytes: 3000, modified: 3),
        ]
        let directory = CleanupDirectory(path: Array("Library/Caches/x".utf8), used: 10_000, effectiveLimit: 8000)
        #expect(directory.target == 6400)

        let clean = BuiltInCleanerTests.SelectiveBackend()
        let result = try EvictionCleaner().clean(context(candidates, directory: directory, backend: clean))
        #expect(clean.requested == [Array("a".utf8), Array("b".utf8)])
        #expect(result.freedBytes == 4000)
        #expect(10_000 - result.freedBytes <= directory.target)

        // One name of the linked inode is held open: its bytes stay in the directory, and
        // eviction goes on to the next file.
        let stubborn = BuiltInCleanerTests.SelectiveBackend(refuse: [Array("b".utf8)])
        let partial = try EvictionCleaner().clean(context(candidates, directory: directory, backend: stubborn))
        // "a" went but freed nothing (its twin "b" stays); c alone leaves 7000 > 6400, so d goes too.
        #expect(partial.removed.map(\.freedBytes) == [0, 3000, 3000])
        #expect(10_000 - partial.freedBytes <= directory.target)
        #expect(partial.skipped.map(\.path) == [Array("b".utf8)])
        #expect(partial.skipped.first?.reason == "open for writing by pid 42")
    }

    /// Refuses every intent, as an audit log on a full disk does.
    final class FullLogBackend: RemovalBackend {
        private let asked = Mutex(0)
        var requests: Int { asked.withLock { $0 } }

        func remove(_ request: RemovalRequest) -> DeletionOutcome {
            asked.withLock { $0 += 1 }
            return .notRecorded(DeletionJournalError(message: "cannot write the audit record to '/s/audit.jsonl'"))
        }
    }

    @Test(
        "an audit log that refuses intents stops every cleaner at its first removal, with the log's message as its error"
    )
    func fullAuditLogStopsTheCleaner() throws {
        let candidates = (1...5).map { candidate("f\($0)", inode: UInt64($0), bytes: 4000, modified: Int64($0)) }
        let directory = CleanupDirectory(path: Array("Library/Caches/x".utf8), used: 20_000, effectiveLimit: 8000)
        let cleaners: [any Cleaner] = [
            LeftoverCleaner(), EvictionCleaner(),
            ExpiryCleaner(age: .seconds(1), nowNanoseconds: { 1_000_000_000_000 }),
        ]
        for cleaner in cleaners {
            let backend = FullLogBackend()
            let result = try cleaner.clean(context(candidates, directory: directory, backend: backend))
            #expect(backend.requests == 1, "\(cleaner.name)")
            #expect(result.removed.isEmpty && result.skipped.count == 1, "\(cleaner.name)")
            #expect(result.error == "cannot write the audit record to '/s/audit.jsonl'", "\(cleaner.name)")
        }
    }

    @Test("a NetworkCache trim stops at its own limit, not the directory's target")
    func trimToLimit() throws {
        let candidates = (0..<10).map {
            candidate("NetworkCache/Records/\($0)", inode: UInt64($0), bytes: 1000, modified: Int64($0))
        }
        let directory = CleanupDirectory(
            path: Array("Library/Caches/WebKit/NetworkCache".utf8), used: 10_000, effectiveLimit: 100_000)
        let backend = BuiltInCleanerTests.SelectiveBackend()
        let result = try EvictionCleaner(name: "webkit-network-cache", limit: 7000)
            .clean(context(candidates, directory: directory, backend: backend))
        #expect(
            result.removed.map { String(decoding: $0.path, as: UTF8.self) }
                == (0..<3).map { "NetworkCache/Records/\($0)" })
    }

    @Test("the leftover cleaner removes every candidate and reports each refusal")
    func leftovers() throws {
        let candidates = [
            candidate("tmp/CFNetworkDownload_a.tmp", inode: 1, bytes: 10, modified: 1),
            candidate("tmp/CFNetworkDownload_b.tmp", inode: 2, bytes: 10, modified: 1),
        ]
        let backend = BuiltInCleanerTests.SelectiveBackend(refuse: [Array("tmp/CFNetworkDownload_b.tmp".utf8)])
        let result = try LeftoverCleaner().clean(context(candidates, directory: nil, backend: backend))
        #expect(result.removed.map(\.path) == [Array("tmp/CFNetworkDownload_a.tmp".utf8)])
        #expect(result.skipped.count == 1)
    }

    @Test("the expiry cleaner takes only what is older than its age")
    func expiry() throws {
        let second: Int64 = 1_000_000_000
        let candidates = [
            candidate("Documents/Inbox/old", inode: 1, bytes: 10, modified: 1 * second),
            candidate("Documents/Inbox/new", inode: 2, bytes: 10, modified: 99 * second),
        ]
        let backend = BuiltInCleanerTests.SelectiveBackend()
        let cleaner = ExpiryCleaner(age: .seconds(50), nowNanoseconds: { 100 * second })
        let result = try cleaner.clean(context(candidates, directory: nil, backend: backend))
        #expect(backend.requested == [Array("Documents/Inbox/old".utf8)])
        #expect(result.removed.count == 1)
    }

    @Test("an external command gets the context as JSON on stdin and QUOTAWATCH_* variables; a failure throws")
    func command() throws {
        let tree = try TempTree()
        let output = tree.absolutePath("") + "/out"
        let script = "cat > \"$0\"; echo \"$QUOTAWATCH_TRIGGER $QUOTAWATCH_TARGET $QUOTAWATCH_LEVEL\" >> \"$0\""
        let cleaner = CommandCleaner(
            name: "custom", arguments: ["/bin/sh", "-c", script, output].map { Array($0.utf8) })
        let directory = CleanupDirectory(path: Array("tmp".utf8), used: 900, effectiveLimit: 1000)
        let result = try cleaner.clean(
            context(
                [], directory: directory, backend: BuiltInCleanerTests.SelectiveBackend(),
                trigger: .breach(path: Array("tmp".utf8))))
        #expect(result.removed.isEmpty)
        let written = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(written.count == 2)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(json["trigger"] as? String == "quota_breach")
        #expect(json["target"] as? Int == 800)
        #expect(json["path"] as? String == "tmp")
        #expect(written[1] == "quota_breach 800 normal")

        let failing = CommandCleaner(
            name: "broken", arguments: ["/bin/sh", "-c", "echo nope >&2; exit 3"].map { Array($0.utf8) })
        #expect(throws: CommandCleanerError.self) {
            _ = try failing.clean(context([], directory: nil, backend: BuiltInCleanerTests.SelectiveBackend()))
        }
    }
}
