import Foundation
import Glibc
import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchHistory
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// `history` reads what is there when it cannot write the state directory: a reader of a WAL
/// database would make its `-shm` file beside it.
@Suite("history on a read-only state directory")
struct HistoryReadOnlyLiveTests {
    @Test(
        "history reads a database in a directory it cannot write",
        .enabled(if: UnprivilegedExecution.isAvailable, "\(UnprivilegedExecution.unavailableReason ?? "")"))
    func readOnlyStateDirectory() throws {
        let base = try TempTree(prefix: "qw-history-readonly")
        try base.setMode(.root, 0o755)
        let root = "/srv/app"
        let directory = try #require(
            StateDirectory.forRoot(Array(root.utf8), environment: ["STATE_DIRECTORY": base.rootPath], userID: 65534))
        let database = directory + Array("/\(HistoryStore.fileName)".utf8)
        do {
            try DurableFile.makeDirectories(directory)
            let store = try HistoryStore(writingTo: database)
            try store.append([
                .event(
                    HistoryEvent(
                        time: WallTime(millisecondsSinceEpoch: 1_700_000_000_000), kind: "quota_breach",
                        path: "Caches/a", line: #"{"event":"quota_breach","path":"Caches/a"}"#))
            ])
        }
        // Only the database itself: its writer is gone, and the last close folded the WAL in.
        let shown = String(decoding: directory, as: UTF8.self)
        let entries = try FileManager.default.contentsOfDirectory(atPath: shown)
        #expect(entries == [HistoryStore.fileName], "\(entries)")
        for (path, mode) in [(shown + "/" + HistoryStore.fileName, 0o400), (shown, 0o500)] {
            #expect(chown(path, UserIdentity.nobody.uid, UserIdentity.nobody.gid) == 0)
            #expect(chmod(path, mode_t(mode)) == 0)
        }

        let staging = try TempTree(prefix: "qw-history-readonly-binary")
        let cli = try CLIRunner.locate().executable(by: .nobody, stagingIn: staging)
        let result = try cli.run(["history", root, "--state-dir", base.rootPath, "--json"], as: .nobody)
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.outputText.contains(#""event":"quota_breach""#), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shown) == [HistoryStore.fileName])
    }
}
