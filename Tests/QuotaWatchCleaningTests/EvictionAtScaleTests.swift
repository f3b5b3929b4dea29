import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// A directory far over its quota: eviction walks nearly all of it, and every name it picks
/// must cost O(1) beyond one sort, in a dry run as in a real one.
@Suite("Eviction of a large directory: work per name, dry run equal to the real one")
struct EvictionAtScaleTests {
    /// Removes everything, recording each request's path and rule.
    final class RecordingBackend: RemovalBackend {
        private let asked = Mutex<[(path: [UInt8], rule: String)]>([])

        var requests: [(path: [UInt8], rule: String)] { asked.withLock { $0 } }

        func remove(_ request: RemovalRequest) -> DeletionOutcome {
            asked.withLock { $0.append((request.path, request.audit.rule)) }
            return .removed(Removal(dryRun: true))
        }
    }

    /// Stands in for a reading of /proc, counting the readings.
    final class CountedReadings: Sendable {
        private let count = Mutex(0)
        let writers: [FileIdentity: Int32]

        init(writers: [FileIdentity: Int32]) { self.writers = writers }

        var readings: Int { count.withLock { $0 } }

        func snapshot() -> OpenWritersSnapshot {
            OpenWritersSnapshot(maximumAge: .seconds(3_600)) { () throws(Errno) in
                self.count.withLock { $0 += 1 }
                return OpenWriters.Census(
                    writers: self.writers.mapValues { OpenWriters.Writer(processID: $0, descriptor: 3) })
            }
        }
    }

    private func context(
        _ candidates: [CleanupCandidate], directory: CleanupDirectory, backend: any RemovalBackend, dryRun: Bool
    ) -> CleanupContext {
        CleanupContext(
            trigger: .breach(path: directory.path),
            inputs: CleanupInputs(level: .normal, directory: directory, candidates: candidates), dryRun: dryRun,
            remover: Remover(backend: backend, trigger: "quota_breach", cleaner: "evict", run: "run-1"),
            runID: "run-1")
    }

    @Test("100 000 files: one removal request per name picked, oldest first, each with its own rule")
    func oneRequestPerName() throws {
        let count = 100_000
        // Ages scrambled by a fixed permutation (a multiplier coprime to the count).
        let candidates = (0..<count).map { index in
            CleanupCandidate(
                path: Array("cache/\(index)".utf8), device: 1, inode: UInt64(index), allocatedBytes: 1000,
                apparentBytes: 1000, modifiedNanoseconds: Int64(index * 7_919 % count), rule: "rule-\(index)")
        }
        let directory = CleanupDirectory(
            path: Array("cache".utf8), used: UInt64(count) * 1000, effectiveLimit: UInt64(count) * 1000,
            target: UInt64(count) * 500)
        let backend = RecordingBackend()
        let result = try EvictionCleaner()
            .clean(context(candidates, directory: directory, backend: backend, dryRun: true))
        let requests = backend.requests
        #expect(requests.count == count / 2)
        #expect(result.removed.count == count / 2)
        #expect(result.freedBytes == UInt64(count) * 500)
        var byAge = [Int](repeating: 0, count: count)
        for index in 0..<count { byAge[index * 7_919 % count] = index }
        let asked = requests.map { Int(String(decoding: $0.path.dropFirst(6), as: UTF8.self)) ?? -1 }
        #expect(asked == Array(byAge.prefix(count / 2)))
        #expect(zip(requests, asked).allSatisfy { $0.rule == "rule-\($1)" })
    }

    @Test("the cleanup deleter reads /proc once for a whole eviction; the dry run lists what the real one removes")
    func dryRunEqualsRealWithOneReading() throws {
        let tree = try TempTree()
        try tree.makeDirectories("root/cache")
        let root = try FileDescriptor.currentWorkingDirectory.openDirectory(tree.absoluteBytes("root"))
        defer { root.close() }
        let count = 2_000
        var candidates: [CleanupCandidate] = []
        for index in 0..<count {
            let path = "cache/f\(index)"
            try tree.writeFile(TreePath("root/" + path), byteCount: 1)
            let status = try root.status(of: Array(path.utf8))
            candidates.append(
                CleanupCandidate(
                    path: Array(path.utf8), device: status.device, inode: status.inode,
                    allocatedBytes: status.allocatedBytes, apparentBytes: status.apparentBytes,
                    modifiedNanoseconds: Int64(count - index), rule: "cache"))
        }
        let used = candidates.reduce(0) { $0 + $1.allocatedBytes }
        let directory = CleanupDirectory(
            path: Array("cache".utf8), used: used, effectiveLimit: used, target: used / 4)
        // The oldest file is held open for writing, as far as the reading of /proc says.
        let held = try #require(candidates.last)
        let writers = [FileIdentity(device: held.device, inode: held.inode): Int32(4242)]

        func run(dryRun: Bool) throws -> (CleanupResult, readings: Int) {
            let readings = CountedReadings(writers: writers)
            let deleter = try Deleter(
                root: root, dryRun: dryRun, isProtected: { _ in false }, writers: readings.snapshot())
            let result = try EvictionCleaner()
                .clean(
                    context(
                        candidates, directory: directory, backend: UnrecordedDeleter(deleter: deleter),
                        dryRun: dryRun))
            return (result, readings.readings)
        }

        let (dry, dryReadings) = try run(dryRun: true)
        #expect(dryReadings == 1)
        #expect(dry.removed.count >= count * 3 / 4)
        #expect(dry.skipped.map(\.path) == [held.path])
        #expect(dry.skipped.first?.reason == "open for writing by pid 4242")
        for index in [0, count / 2, count - 2] { #expect(try tree.exists(TreePath("root/cache/f\(index)"))) }

        let (real, realReadings) = try run(dryRun: false)
        #expect(realReadings == 1)
        #expect(real.removed == dry.removed)
        #expect(real.skipped == dry.skipped)
        #expect(used - real.freedBytes <= directory.target)
        for item in real.removed {
            #expect(try !tree.exists(TreePath("root/" + String(decoding: item.path, as: UTF8.self))))
        }
        #expect(try tree.exists(TreePath("root/" + String(decoding: held.path, as: UTF8.self))))
    }
}
