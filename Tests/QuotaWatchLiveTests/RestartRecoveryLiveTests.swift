import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// A daemon killed between an intent and its outcome leaves the intent open. Every start
/// resolves such intents, whether it deletes or not, and says so once.
@Suite("intents a crash left open are resolved on every start")
struct RestartRecoveryLiveTests {
    @Test(
        "a restart resolves the open intents: gone recorded as deleted, present as not done",
        arguments: [[], ["--clean", "--dry-run"], ["--clean"]])
    func restartResolves(_ options: [String]) throws {
        let setup = try CleanupLiveTests.Setup()
        let tree = setup.fixture.tree
        let cache = LiveFixture.root / "Caches" / "a"
        try tree.makeDirectories(cache)
        try tree.writeFile(cache / "kept", byteCount: 4_096)
        // A first start makes ROOT's state directory; then the log of a run killed mid-way.
        let first = try setup.start([])
        #expect(try first.stop().exitStatus == 0)
        let directory = try Self.stateDirectory(setup.state.rootPath)
        var status = stat()
        guard stat(tree.absolutePath(cache / "kept"), &status) == 0 else { throw DaemonError("cannot stat kept") }
        let intents = [
            Self.intent(
                path: "Caches/a/kept", sequence: 1, device: UInt64(status.st_dev), inode: UInt64(status.st_ino)),
            Self.intent(path: "Caches/a/gone", sequence: 2, device: UInt64(status.st_dev), inode: 999_999_999),
        ]
        try (intents.joined(separator: "\n") + "\n").write(
            toFile: directory + "/audit.jsonl", atomically: false, encoding: .utf8)

        let daemon = try setup.start(["--quota", "Caches/*=1GB"] + options)
        _ = try daemon.syncStatus()
        try daemon.waitForStandardError(containing: "had 2 deletion(s) without an outcome")
        let outcomes = try setup.auditRecords().filter { $0["record"] as? String == "outcome" }
        let results = Dictionary(
            outcomes.compactMap { record in (record["path"] as? String).map { ($0, record["result"] as? String) } },
            uniquingKeysWith: { first, _ in first })
        #expect(results["Caches/a/kept"] == "recovered: present", "\(options): \(outcomes)")
        #expect(results["Caches/a/gone"] == "recovered: gone", "\(options): \(outcomes)")
        #expect(try tree.exists(cache / "kept"))
        #expect(try daemon.stop().exitStatus == 0)
        // Said once: the next start finds nothing left to resolve.
        let again = try setup.start(options)
        _ = try again.syncStatus()
        #expect(!again.errorText.contains("without an outcome"), "\(again.errorText)")
    }

    static func intent(path: String, sequence: Int, device: UInt64, inode: UInt64) -> String {
        #"{"record":"intent","run":"killed-1","seq":\#(sequence),"path":"\#(path)","device":\#(device),"#
            + #""inode":\#(inode),"rule":"Caches/*","trigger":"quota_breach","cleaner":"evict","time":"2026-01-01T00:00:00Z"}"#
    }

    /// ROOT's own directory under the base: the only one named for a root called `root` (the
    /// sibling roots' are `home-HASH`).
    static func stateDirectory(_ base: String) throws -> String {
        let entries = try FileManager.default.contentsOfDirectory(atPath: base).filter { $0.hasPrefix("root-") }
        guard entries.count == 1, let only = entries.first else {
            throw DaemonError("expected one state directory in \(base), found \(entries)")
        }
        return base + "/" + only
    }
}
