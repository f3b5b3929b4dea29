import Foundation
import QuotaWatchTestSupport
import Testing

/// A daemon that cannot read a directory of its tree says so: a warning on stderr when it
/// finds one (at start and later), the directory in `status` (JSON and text) with why.
@Suite("run: directories it cannot read are not silent")
struct UnreadableDirectoryLiveTests {
    private let root = LiveFixture.root

    @Test(
        "as nobody, a 0700 root-owned subdirectory is warned of at start and when made later, and listed by status",
        .enabled(
            if: UnprivilegedExecution.isAvailable,
            "needs root, setpriv, and a temp directory that uid 65534 can reach (root reads everything)"))
    func unreadableIsWarnedAndListed() throws {
        let fixture = try LiveFixture(as: .nobody)
        let tree = fixture.tree
        try tree.makeDirectories(root / "open")
        try tree.writeFile(root / "open" / "file", byteCount: 10_000)
        // Made by root (the test), so owned by root: nobody can neither list nor search it.
        try tree.makeDirectory(root / "secret", mode: 0o700)
        try tree.writeFile(root / "secret" / "hidden", byteCount: 50_000)
        let daemon = try fixture.start()

        try daemon.waitForStandardError(containing: "cannot be read")
        #expect(daemon.errorText.contains("1 directory of"), "\(daemon.errorText)")
        #expect(daemon.errorText.contains("(permission denied), so what is inside is not counted"))
        #expect(daemon.errorText.contains(": secret;"), "\(daemon.errorText)")

        let json = try daemon.statusCommand(["status", fixture.rootPath, "--socket", fixture.socketPath, "--json"])
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput)) as? [String: Any], "\(json)")
        let engine = try #require(document["engine"] as? [String: Any])
        let unreadable = try #require(engine["unreadable"] as? [[String: String]], "\(engine)")
        #expect(unreadable.map { $0["path"] } == ["secret"])
        #expect(unreadable.first?["reason"]?.hasPrefix("permission denied") == true)
        let text = try daemon.statusCommand(["status", fixture.rootPath, "--socket", fixture.socketPath])
        #expect(text.outputText.contains("degraded: secret cannot be read (permission denied"), "\(text.outputText)")

        // One made unreadable while the daemon runs is warned of too.
        try tree.makeDirectory(root / "open" / "later", mode: 0o700)
        try daemon.waitForStandardError(containing: "open/later")
        _ = try daemon.status(sync: true)
        let again = try daemon.statusCommand(["status", fixture.rootPath, "--socket", fixture.socketPath])
        #expect(again.outputText.contains("degraded: open/later cannot be read"), "\(again.outputText)")
        try fixture.stopCleanly()
    }
}
