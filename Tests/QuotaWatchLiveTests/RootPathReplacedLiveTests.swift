import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// ROOT's parent renamed and a new directory made at ROOT's path: no watch hears of it, and
/// the daemon must not go on reporting the old tree under the path's name.
@Suite("ROOT's path replaced")
struct RootPathReplacedLiveTests {
    @Test("ROOT's parent renamed and ROOT's path made anew: root_gone, exit 1")
    func parentRenamed() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let old: TreePath = "outside/parent/root"
        try tree.makeDirectories(old)
        try tree.writeFile(old / "file", byteCount: 9_000)
        let daemon = try Daemon.start(
            fixture.cli, root: tree.absolutePath(old), socket: fixture.socketPath, options: ["--poll-interval", "1"])
        _ = try daemon.status()

        try tree.rename("outside/parent", to: "outside/renamed")
        try tree.makeDirectories(old)
        let exit = try daemon.waitForRootToEnd(timeout: .seconds(20))
        #expect(exit.exitStatus == daemon.exitStatusAfterRootEnded(alone: 1), "\(exit)")
        #expect(exit.errorText.contains("no longer leads to the directory being watched"), "\(exit)")
        let gone = exit.events.first { $0.event == "root_gone" }
        #expect(gone != nil, "\(exit)")
    }
}
