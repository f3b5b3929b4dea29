import Foundation
import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@Suite("Cleanup end to end: runner, cleaner, audited deleter, real tree")
struct CleanupEndToEndTests {
    private func runOnce(
        root: FileDescriptor, state: [UInt8], dryRun: Bool, inputs: CleanupInputs, cleaner: any Cleaner
    ) throws -> CleanupSummary {
        let deleter = try Deleter(
            root: root, dryRun: dryRun, isProtected: { $0.starts(with: Array("Documents".utf8)) },
            openWriter: { _ throws(Errno) in .noWriter })
        let log = try AuditLog(directory: state)
        let collector = SummaryCollector()
        let runner = CleanupRunner(
            settings: CleanupRunner.Settings(dryRun: dryRun), backend: AuditedDeleter(deleter: deleter, log: log),
            instance: dryRun ? "dry" : "real", prepare: { _ in inputs }, completion: { collector.receive($0) })
        runner.register(cleaner)
        runner.submit(.breach(path: Array("cache".utf8)))
        runner.waitUntilIdle()
        return try #require(collector.summaries.first)
    }

    @Test("a dry run lists exactly what the real run then removes, and writes no audit record")
    func dryRunThenReal() throws {
        let tree = try TempTree()
        try tree.makeDirectories("root/cache")
        try tree.makeDirectory("root/Documents")
        var candidates: [CleanupCandidate] = []
        let root = try FileDescriptor.currentWorkingDirectory.openDirectory(tree.absoluteBytes("root"))
        defer { root.close() }
        for index in 0..<6 {
            let path = "cache/f\(index)"
            try tree.writeFile(TreePath("root/" + path), byteCount: 4096)
            let status = try root.status(of: Array(path.utf8))
            candidates.append(
                CleanupCandidate(
                    path: Array(path.utf8), device: status.device, inode: status.inode,
                    allocatedBytes: status.allocatedBytes, apparentBytes: status.apparentBytes,
                    modifiedNanoseconds: Int64(index), rule: "cache"))
        }
        // Claimed by a candidate list, but protected: neither run may touch it.
        try tree.writeFile("root/Documents/mine", byteCount: 4096)
        let mine = try root.status(of: Array("Documents/mine".utf8))
        candidates.append(
            CleanupCandidate(
                path: Array("Documents/mine".utf8), device: mine.device, inode: mine.inode, allocatedBytes: 1,
                apparentBytes: 1, modifiedNanoseconds: -1, rule: "cache"))
        let allocated = candidates.prefix(6).reduce(0) { $0 + $1.allocatedBytes }
        let directory = CleanupDirectory(
            path: Array("cache".utf8), used: allocated, effectiveLimit: allocated * 5 / 8)
        let inputs = CleanupInputs(level: .warning, directory: directory, candidates: candidates)
        let state = tree.absoluteBytes("state")

        let dry = try runOnce(root: root, state: state, dryRun: true, inputs: inputs, cleaner: EvictionCleaner())
        let logPath = String(decoding: state, as: UTF8.self) + "/audit.jsonl"
        #expect((try? Data(contentsOf: URL(fileURLWithPath: logPath)))?.isEmpty ?? true)
        for index in 0..<6 { #expect(try tree.exists(TreePath("root/cache/f\(index)"))) }

        let real = try runOnce(
            root: root, state: state, dryRun: false, inputs: inputs, cleaner: EvictionCleaner())
        let wouldRemove = dry.cleaners[0].removed.map(\.path)
        #expect(!wouldRemove.isEmpty)
        #expect(wouldRemove == real.cleaners[0].removed.map(\.path))
        #expect(dry.freedBytes == real.freedBytes)
        #expect(allocated - real.freedBytes <= directory.target)
        for path in wouldRemove { #expect(try !tree.exists(TreePath("root/" + String(decoding: path, as: UTF8.self)))) }
        #expect(try tree.exists("root/Documents/mine"))
        #expect(dry.jsonLine.contains("\"paths\":[\"cache/f0\""))
        let records = CleanupProbe.records(logPath)
        #expect(records.filter { $0["record"] as? String == "intent" }.count == wouldRemove.count)
        #expect(records.allSatisfy { $0["run"] as? String == "real-1" })
    }
}
