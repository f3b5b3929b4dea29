import Foundation
import Glibc
import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// A state directory on a full or failing disk, without a full disk: `fdatasync` of the audit
/// log fails by injection. The cleaner stops at the first intent it cannot make durable, says
/// which log and which error, and deletes nothing whose intent is not on disk.
@Suite("Audit log and deleter under injected faults: fdatasync fails (ENOSPC, EIO), descriptors run out (EMFILE)")
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

    /// The descriptor table is full when the deleter opens the files' directory: they are kept
    /// and said to be kept for that reason, and no intent is left unresolved. The first openat2
    /// is the deleter's probe for the kernel's openat2, which an EMFILE must not turn into
    /// "this kernel has none"; after a failed openat2 the deleter walks again component by
    /// component (openat), which must fail too for anything to be kept.
    @Test("EMFILE during the run: the file whose directory could not be opened is kept and says why")
    func descriptorsRunOut() throws {
        let setup = try Setup(names: ["one.bin", "two.bin", "three.bin"])
        let faults = FaultPlan()
        faults.fail(.openat2, with: .tooManyOpenFiles)
        faults.fail(.openat, with: .tooManyOpenFiles, path: "tmp")
        let report = try setup.clean(under: faults)
        let opens = faults.calls(.openat2)
        #expect(opens.prefix(2).map(\.injected) == [.tooManyOpenFiles, .tooManyOpenFiles], "\(opens)")
        #expect(opens.count > 2, "the deleter gave up on openat2 after the probe's EMFILE")
        let kept = report.skipped.map { String(decoding: $0.path, as: UTF8.self) }
        #expect(kept.sorted() == ["tmp/one.bin", "tmp/three.bin", "tmp/two.bin"], "\(report)")
        for name in kept { #expect(try setup.exists(String(name.dropFirst("tmp/".count)))) }
        #expect(
            report.skipped.allSatisfy { "\($0)".contains("open files") || "\($0)".contains("EMFILE") },
            "\(report.skipped)")
        #expect(report.removed.isEmpty)
        let records = try setup.records()
        for path in Set(records.filter { $0.record == "intent" }.map(\.path)) {
            #expect(records.contains { $0.record != "intent" && $0.path == path }, "intent for \(path) left open")
        }
    }
}
