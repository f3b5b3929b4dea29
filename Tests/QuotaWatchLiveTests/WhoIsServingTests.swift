import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// A client that finds no daemon it may ask says which daemons there are: the one of another
/// user serving the ROOT it named (and why it does not ask it), or, named nothing, every
/// daemon running with its root, pid and socket.
@Suite("who is serving: the messages when no daemon is asked")
struct WhoIsServingTests {
    /// A daemon run by a user made up for the test, on `root`, at `run/control.sock` in a
    /// directory only that user may enter; its binary staged where that user can run it.
    private func startOtherUsersDaemon() throws -> (
        tree: TempTree, staging: TempTree, cli: CLIRunner, socket: String, owner: UserIdentity, daemon: Daemon
    ) {
        let owner = UserIdentity(uid: uid_t(200_000 + Int.random(in: 0..<500_000) * 2), gid: 65534)
        let tree = try TempTree(prefix: "qw-who")
        try tree.setMode(.root, 0o755)
        try tree.makeDirectory("root")
        try tree.makeDirectory("run", mode: 0o700)
        try tree.setOwner("run", owner)
        let staging = try TempTree(prefix: "qw-who-binary")
        let cli = try CLIRunner.locate().executable(by: owner, stagingIn: staging)
        let socket = tree.absolutePath("run/control.sock")
        let daemon = try Daemon.start(
            cli, root: tree.absolutePath("root"), socket: socket, options: ["--no-history"], as: owner)
        return (tree, staging, cli, socket, owner, daemon)
    }

    @Test(
        "root asking about a daemon another user runs is told its pid, its user, why root does not ask it and how to",
        .enabled(
            if: UnprivilegedExecution.isAvailable,
            "needs root and setpriv to run a daemon as another user, and a temp directory it can reach"))
    func anotherUsersDaemon() throws {
        let (tree, staging, cli, socket, owner, daemon) = try startOtherUsersDaemon()
        defer { withExtendedLifetime((tree, staging)) {} }
        defer { _ = try? daemon.stop() }

        let result = try cli.run(["status", tree.absolutePath("root")])
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains("runs as user \(owner.uid) on \(socket)"), "\(result.errorText)")
        #expect(result.errorText.contains("root's clients trust only root's daemons"), "\(result.errorText)")
        #expect(
            result.errorText.contains("sudo -u '#\(owner.uid)' quotawatch status \(tree.absolutePath("root"))"),
            "\(result.errorText)")
    }

    @Test(
        "root naming another user's daemon by its --socket is refused, and told whose daemon it is and how to ask it",
        .enabled(
            if: UnprivilegedExecution.isAvailable,
            "needs root and setpriv to run a daemon as another user, and a temp directory it can reach"))
    func anotherUsersSocket() throws {
        let (tree, staging, cli, socket, owner, daemon) = try startOtherUsersDaemon()
        defer { withExtendedLifetime((tree, staging)) {} }
        defer { _ = try? daemon.stop() }

        let result = try cli.run(["status", "--socket", socket])
        #expect(result.exitStatus == 1, "\(result)")
        #expect(result.errorText.contains("refusing to trust"), "the refusal stands: \(result.errorText)")
        #expect(
            result.errorText.contains("socket of pid \(daemon.processID) run by user \(owner.uid)"),
            "\(result.errorText)")
        #expect(
            result.errorText.contains("sudo -u '#\(owner.uid)' quotawatch status --socket \(socket)"),
            "\(result.errorText)")
    }

    @Test(
        "status naming no root lists the roots served; status --quotas naming none lists each daemon's root, pid and socket"
    )
    func twoDaemonsListed() throws {
        let tree = try TempTree(prefix: "qw-who-two")
        try tree.makeDirectories("one")
        try tree.makeDirectories("two")
        let cli = try CLIRunner.locate()
        let first = try Daemon.start(
            cli, root: tree.absolutePath("one"), socket: tree.absolutePath("one.sock"), options: ["--no-history"])
        defer { _ = try? first.stop() }
        let second = try Daemon.start(
            cli, root: tree.absolutePath("two"), socket: tree.absolutePath("two.sock"), options: ["--no-history"])
        defer { _ = try? second.stop() }

        // Alone, status lists the roots served, each with the socket it answers on.
        let listed = try cli.run(["status"])
        #expect(listed.exitStatus == 0, "\(listed)")
        for (root, socket) in [("one", "one.sock"), ("two", "two.sock")] {
            let row = listed.outputText.split(separator: "\n").first { $0.contains(tree.absolutePath(TreePath(root))) }
            #expect(row?.hasSuffix(tree.absolutePath(TreePath(socket))) == true, "\(root): \(listed.outputText)")
        }
        // A question about one root's quotas must name it: the daemons running are listed.
        let result = try cli.run(["status", "--quotas"])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("Name the watched root or its socket"), "\(result.errorText)")
        for (daemon, root, socket) in [(first, "one", "one.sock"), (second, "two", "two.sock")] {
            let line =
                "\(tree.absolutePath(TreePath(root))) (pid \(daemon.processID), user 0, "
                + "socket \(tree.absolutePath(TreePath(socket))))"
            #expect(result.errorText.contains(line), "\(line) is not listed: \(result.errorText)")
        }
    }
}
