import Foundation
import QuotaWatchCleaning
import QuotaWatchHistory
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// `history --growth PATH` takes the path as QuotaWatch prints it, and a path without samples
/// is an error naming it.
@Suite("history --growth paths")
struct HistoryGrowthPathLiveTests {
    /// A state directory whose database has samples of `paths` (escaped, as the recorder writes them).
    static func database(_ paths: [String]) throws -> TempTree {
        let base = try TempTree(prefix: "qw-history-growth")
        let directory = try #require(
            StateDirectory.forRoot(Array("/srv/app".utf8), environment: ["STATE_DIRECTORY": base.rootPath], userID: 0))
        try DurableFile.makeDirectories(directory)
        let store = try HistoryStore(writingTo: directory + Array("/\(HistoryStore.fileName)".utf8))
        let now = WallTime.now().millisecondsSinceEpoch
        try store.append(
            paths.map {
                .sample(
                    HistorySample(
                        time: WallTime(millisecondsSinceEpoch: now - 60_000), path: $0, allocated: 8192,
                        apparent: 8000, reason: "periodic"))
            })
        return base
    }

    @Test(
        "a path as QuotaWatch prints it finds its samples",
        arguments: [#"Library/Caches/\xff\xfe"#, #"back\\slash"#, "/srv/app/Library/Caches/\\xff\\xfe"])
    func escapedPath(_ given: String) throws {
        let base = try Self.database([#"Library/Caches/\xff\xfe"#, #"back\\slash"#])
        let result = try CLIRunner.locate().run(
            ["history", "/srv/app", "--state-dir", base.rootPath, "--growth", given, "--json"])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.outputText.contains(#""allocated":8192"#), "\(result)")
    }

    @Test("a path without samples exits 1, naming it and the sampled ones", arguments: [[], ["--json"]])
    func noSamples(_ extra: [String]) throws {
        let base = try Self.database(["Caches/a"])
        let result = try CLIRunner.locate().run(
            ["history", "/srv/app", "--state-dir", base.rootPath, "--growth", "Caches/b"] + extra)
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains("no samples of 'Caches/b'"), "\(result)")
        #expect(result.errorText.contains("sampled: Caches/a"), "\(result)")
    }
}
