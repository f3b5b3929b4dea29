import Foundation
import Glibc
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchCleaning

/// A state directory on a full or failing disk, without a full disk: `fdatasync` of the audit
/// log fails by injection. The cleaner stops at the first intent it cannot make durable, says
/// which log and which error, and deletes nothing whose intent is not on disk.
@Suite("Audit log: fdatasync fails (ENOSPC, EIO)")
struct AuditLogFaultTests {
    struct Setup {
        let tree: TempTree
        let root: FileDescriptor
        let state: [UInt8]
        let items: [CleanItem]

        init(names: [String]) throws {
            tree = try TempTree()
            try tree.makeDirectories("root/tmp")
            try tree.makeDirectory("state")
            for name in names { try tree.writeFile(TreePath("root/tmp/\(name)"), byteCount: 6000) }
            let root = try FileDescriptor.currentWorkingDirectory.openDirectory(tree.absoluteBytes("root"))
            self.root = root
            state = tree.absoluteBytes("state/quotawatch")
            items = try names.map { name in
                let path = Array("tmp/\(name)".utf8)
                return try #require(CleanItem(path: path, status: try root.status(of: path)))
            }
        }

        func clean(under faults: FaultPlan) throws -> CleanDeletionReport {
            try faults.arm { () throws(ManualCleanError) in
                try ManualClean.runLocally(
                    root: root, items: items,
                    protection: CleanupProtection(protectedGlobs: [], documentsExceptions: []),
                    stateDirectory: state, dryRun: false)
            }
        }

        func exists(_ name: String) throws -> Bool { try tree.exists(TreePath("root/tmp/\(name)")) }

        /// The audit records on disk, as (record, path) pairs.
        func records() throws -> [(record: String, path: String)] {
            let data = try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("state/quotawatch/audit.jsonl")))
            return data.split(separator: UInt8(ascii: "\n")).compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                    let record = object["record"] as? String, let path = object["path"] as? String
                else { return nil }
                return (record, path)
            }
        }
    }

    @Test(
        "every fdatasync fails: nothing is deleted, the cleaner stops at once and names the log and the errno",
        arguments: [(ENOSPC, "ENOSPC"), (EIO, "EIO")])
    func everySyncFails(code: CInt, symbol: String) throws {
        let setup = try Setup(names: ["one.bin", "two.bin", "three.bin"])
        let faults = FaultPlan()
        faults.fail(.fdatasync, with: Errno(rawValue: code))
        let report = try setup.clean(under: faults)
        #expect(report.removed.isEmpty)
        for name in ["one.bin", "two.bin", "three.bin"] { #expect(try setup.exists(name), "\(name) was kept") }
        let error = try #require(report.error)
        #expect(error.contains("'\(setup.tree.absolutePath("state/quotawatch/audit.jsonl"))'"), "\(error)")
        #expect(error.contains("(\(symbol))") && error.contains("nothing was deleted"), "\(error)")
        #expect(report.skipped.map(\.path) == [Array("tmp/one.bin".utf8)], "the cleaner stopped at the first")
        #expect(faults.calls(.fdatasync).count == 1)
        #expect(faults.calls(.unlinkat).isEmpty)
    }

    /// Intents are committed a group at a time (one fdatasync before any unlink of the group):
    /// the second group's sync fails, so the first group goes with its intents on disk, the
    /// second stays whole, and nothing after it is tried.
    @Test("a sync fails midway: what was deleted has its intent on disk, the rest is kept")
    func syncFailsMidway() throws {
        let count = Deleter.groupSize + 6
        let names = (0..<count).map { String(format: "f%05d.bin", $0) }
        let setup = try Setup(names: names)
        let faults = FaultPlan()
        faults.fail(.fdatasync, with: .noSpace, skipping: 1)
        let report = try setup.clean(under: faults)
        #expect(report.removed.count == Deleter.groupSize, "the first group went")
        let removed = Set(report.removed.map { String(decoding: $0.path, as: UTF8.self) })
        let kept = try names.filter { try setup.exists($0) }
        #expect(kept.count == count - Deleter.groupSize, "the second group stayed whole")
        #expect(kept.allSatisfy { !removed.contains("tmp/\($0)") })
        #expect(report.error?.contains("(ENOSPC)") == true, "\(report.error ?? "no error")")
        let intents = Set(try setup.records().filter { $0.record == "intent" }.map(\.path))
        #expect(removed.isSubset(of: intents), "every file gone went with its intent")
        #expect(faults.calls(.unlinkat).count == Deleter.groupSize)
        #expect(faults.calls(.fdatasync).map(\.injected) == [nil, .noSpace])
    }
}
