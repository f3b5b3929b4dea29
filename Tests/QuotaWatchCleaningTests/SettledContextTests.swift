import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization
import Testing

@testable import QuotaWatchCleaning

/// Each cleaner after the first works from the tree the ones before it left: no candidate
/// already gone, the tally after their removals, and no call at all once the directory is
/// at its target. Before, a registered cleaner got the tally from before `evict` ran and
/// removed 11 MB more for one breach.
@Suite("a cleaner's context is settled against the cleaners before it")
struct SettledContextTests {
    static let directory = Array("Caches/video".utf8)

    /// Ten files of 1 000 B in Caches/video, oldest first, over an 8 000 B limit (target 6 400).
    static func files() -> [CleanupCandidate] {
        (0..<10).map { index in
            CleanupCandidate(
                path: directory + Array("/f\(index)".utf8), device: 1, inode: UInt64(100 + index),
                allocatedBytes: 1_000, apparentBytes: 1_000, modifiedNanoseconds: Int64(index))
        }
    }

    static func breached(files: [CleanupCandidate]) -> CleanupInputs {
        CleanupInputs(
            level: .normal,
            directory: CleanupDirectory(
                path: directory, used: 10_000, effectiveLimit: 8_000, target: 6_400,
                tally: Tally(usage: Usage(allocated: 10_000, apparent: 10_000), files: 10, dirs: 0)),
            candidates: files)
    }

    /// Removes every name but those in `refused`, which it keeps as open for writing.
    final class RefusingBackend: RemovalBackend {
        let refused: Set<[UInt8]>
        private let asked = Mutex<[[UInt8]]>([])

        init(refused: Set<[UInt8]>) { self.refused = refused }

        var requests: [[UInt8]] { asked.withLock { $0 } }

        func remove(_ request: RemovalRequest) -> DeletionOutcome {
            asked.withLock { $0.append(request.path) }
            if refused.contains(request.path) { return .skipped(.openForWriting(processID: 42)) }
            var removal = Removal(dryRun: false)
            removal.freedBytes = 1_000
            return .removed(removal)
        }
    }

    /// Records the context it is called with and removes nothing.
    final class RecordingCleaner: Cleaner, Sendable {
        let name = "app"
        private let seen = Mutex<[CleanupContext]>([])
        var contexts: [CleanupContext] { seen.withLock { $0 } }

        func clean(_ context: CleanupContext) throws -> CleanupResult {
            seen.withLock { $0.append(context) }
            return CleanupResult()
        }
    }

    /// `evict`, then the recording cleaner, both handed the breached directory, as the planner
    /// hands it to eviction and to a command or registered cleaner.
    private func run(refusing refused: Set<[UInt8]>) -> (RecordingCleaner, RefusingBackend, CleanupSummary?) {
        let files = Self.files()
        let plans = CleanupPlans()
        var plan = CleanupPlan(level: .normal, jobs: [[Self.breached(files: files)], [Self.breached(files: files)]])
        plan.directoryFiles = [Self.directory: files]
        let trigger = CleanupTrigger.breach(path: Self.directory)
        plans.stage(trigger, plan)
        let backend = RefusingBackend(refused: refused)
        let collector = SummaryCollector()
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(dryRun: false), backend: backend, instance: "test",
            prepare: { CleanupInputs(level: plans.activate($0)?.level ?? .normal) },
            completion: { collector.receive($0) })
        let recording = RecordingCleaner()
        runner.register(PlannedCleaner(inner: EvictionCleaner(), slot: 0, plans: plans, dryBackend: backend))
        runner.register(PlannedCleaner(inner: recording, slot: 1, plans: plans, dryBackend: backend))
        runner.submit(trigger)
        runner.waitUntilIdle()
        return (recording, backend, collector.summaries.first)
    }

    @Test("evict brings the directory to its target: the next cleaner is not called for it")
    func nothingLeftToDo() {
        let (recording, backend, summary) = run(refusing: [])
        #expect(backend.requests.count == 4, "10 000 → 6 000 B, the first file under the 6 400 B target")
        #expect(recording.contexts.isEmpty, "called with \(recording.contexts.map { $0.directory?.used ?? 0 })")
        #expect(summary?.cleaners.first?.removed.count == 4)
    }

    @Test("evict could not reach the target: the next cleaner sees the tally after it and none of its files")
    func freshContext() throws {
        let kept = Set(Self.files().dropFirst().map(\.path))
        let (recording, _, _) = run(refusing: kept)
        let context = try #require(recording.contexts.first)
        #expect(recording.contexts.count == 1)
        #expect(context.directory?.used == 9_000)
        #expect(context.directory?.tally?.files == 9)
        #expect(context.removedEarlier == [Self.directory + Array("/f0".utf8)])
        #expect(!context.candidates.contains { $0.path == Self.directory + Array("/f0".utf8) })
        #expect(context.candidates.count == 9)
    }

    @Test("a removed directory stands for everything below it; a hard link frees its inode with its last name")
    func settleArithmetic() {
        let a = CleanupCandidate(
            path: Array("d/a".utf8), device: 1, inode: 7, allocatedBytes: 4_096, apparentBytes: 10,
            modifiedNanoseconds: 0,
            linkCount: 2, namesInDirectory: [Array("d/a".utf8), Array("d/sub/b".utf8)])
        var b = a
        b.path = Array("d/sub/b".utf8)
        let c = CleanupCandidate(
            path: Array("d/sub/c".utf8), device: 1, inode: 8, allocatedBytes: 8_192, apparentBytes: 20,
            modifiedNanoseconds: 0)
        let onlyA = CleanupPlan.dropped(from: [a, b, c], removed: [Array("d/a".utf8)])
        #expect(onlyA.allocated == 0 && onlyA.names == 1, "b still holds the inode")
        let withSub = CleanupPlan.dropped(from: [a, b, c], removed: [Array("d/a".utf8), Array("d/sub".utf8)])
        #expect(withSub.allocated == 4_096 + 8_192 && withSub.apparent == 30 && withSub.names == 3)
        #expect(!CleanupPlan.isRemoved(Array("d/subway".utf8), [Array("d/sub".utf8)]))
    }
}
