import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Another local user squats the victim's socket directory, or its state directory: every
/// client of the victim refuses to trust what it finds there, names the path and the owner,
/// and exits 1.
///
/// Both users are uids with no account (setpriv needs none), picked at random so parallel
/// runs do not meet; what they leave behind outside the temp tree (the squatted
/// `/tmp/quotawatch-UID`) is removed by the test.
@Suite(
    "socket and state directory squatting",
    .enabled(
        if: UnprivilegedExecution.isAvailable,
        "needs root and setpriv to run the victim and the squatter as two other users, and a temp directory they can reach"
    ))
struct SocketSquattingTests {
    private let victim: UserIdentity
    private let squatter: UserIdentity

    init() {
        let base = uid_t(200_000 + Int.random(in: 0..<500_000) * 2)
        victim = UserIdentity(uid: base, gid: base)
        squatter = UserIdentity(uid: base + 1, gid: base + 1)
    }

    /// A tree both users can reach, with a root to watch and the binary where both can run it.
    private func setUp() throws -> (tree: TempTree, cli: CLIRunner) {
        let tree = try TempTree(prefix: "qw-squat")
        try tree.setMode(.root, 0o755)
        try tree.makeDirectory("root")
        try tree.writeFile("root/file", byteCount: 10_000)
        let staging = try TempTree(prefix: "qw-squat-binary")
        let cli = try CLIRunner.locate().executable(by: victim, stagingIn: staging)
        return (tree, cli)
    }

    /// Runs `quotawatch` as the victim, without a runtime directory, so the default socket is
    /// `/tmp/quotawatch-UID/NAME.sock`.
    private func asVictim(
        _ cli: CLIRunner, _ arguments: [String], environment: [String: String] = [:]
    ) throws
        -> ProcessResult
    {
        try ProcessRunner.run(
            cli.executablePath, arguments, as: victim,
            environment: ["XDG_RUNTIME_DIR": "", "HOME": "/nonexistent"].merging(environment) { $1 })
    }

    private func expectRefused(_ result: ProcessResult, naming path: String, owner: uid_t, _ what: String) {
        #expect(result.exitStatus == 1, "\(what): \(result)")
        #expect(result.errorText.contains("refusing"), "\(what): \(result)")
        #expect(result.errorText.contains(path), "\(what) names \(path): \(result)")
        #expect(result.errorText.contains("user \(owner)"), "\(what) names the owner: \(result)")
        #expect(result.outputText.isEmpty, "\(what) printed nothing of the squatter's answer: \(result)")
    }

    @Test("a squatted /tmp/quotawatch-UID with another user's daemon in it is refused by every client")
    func squattedDefaultDirectory() throws {
        let (tree, cli) = try setUp()
        let root = tree.absolutePath("root")
        // The victim's default socket, as its own client names it while nothing is there.
        let probe = try asVictim(cli, ["status", root])
        #expect(probe.exitStatus == 1, "\(probe)")
        let socket = try #require(
            probe.errorText.components(separatedBy: "listening on ").dropFirst().first?
                .components(separatedBy: ";").first, "\(probe)")
        let directory = (socket as NSString).deletingLastPathComponent
        #expect(directory == "/tmp/quotawatch-\(victim.uid)")
        defer { _ = try? ProcessRunner.run("rm", ["-rf", directory]) }

        // The squatter makes the directory first and answers there with a daemon of its own.
        let made = try ProcessRunner.run("mkdir", ["-m", "0755", directory], as: squatter)
        #expect(made.exitStatus == 0, "\(made)")
        let daemon = try Daemon.start(cli, root: root, socket: socket, as: squatter)
        defer { _ = try? daemon.stop() }
        // Open to anyone, so the victim's client can reach it and would believe its answer.
        let opened = try ProcessRunner.run("chmod", ["0777", socket], as: squatter)
        #expect(opened.exitStatus == 0, "\(opened)")

        expectRefused(try asVictim(cli, ["status", root]), naming: directory, owner: squatter.uid, "status")
        expectRefused(
            try asVictim(cli, ["status", root, "--quotas"]), naming: directory, owner: squatter.uid, "--quotas")
        expectRefused(try asVictim(cli, ["clean-now", root]), naming: directory, owner: squatter.uid, "clean-now")
        expectRefused(try asVictim(cli, ["clean", root, "--list"]), naming: directory, owner: squatter.uid, "clean")
        expectRefused(try asVictim(cli, ["watch", root]), naming: directory, owner: squatter.uid, "watch")
        expectRefused(
            try asVictim(cli, ["status", "--socket", socket]), naming: directory, owner: squatter.uid, "--socket")
    }

    @Test("a socket made to look like the victim's is refused by who listens on it (SO_PEERCRED)")
    func foreignListener() throws {
        let (tree, cli) = try setUp()
        let root = tree.absolutePath("root")
        try tree.makeDirectory("squatter", mode: 0o755)
        try tree.setOwner("squatter", squatter)
        let foreign = tree.absolutePath("squatter/control.sock")
        let daemon = try Daemon.start(cli, root: root, socket: foreign, as: squatter)
        defer { _ = try? daemon.stop() }
        // Root (an admin's mistake, or a race the path checks cannot see) gives the squatter's
        // socket a name in a directory of the victim's, owned by the victim.
        try tree.makeDirectory("victim", mode: 0o700)
        try tree.setOwner("victim", victim)
        let socket = tree.absolutePath("victim/control.sock")
        #expect(link(foreign, socket) == 0, "link: \(String(cString: strerror(errno)))")
        #expect(chown(socket, victim.uid, victim.gid) == 0)

        let result = try asVictim(cli, ["status", "--socket", socket])
        expectRefused(result, naming: socket, owner: squatter.uid, "status")
        #expect(result.errorText.contains("the process listening on it runs as user \(squatter.uid)"), "\(result)")
    }

    @Test("a state directory owned by another user is refused by history, clean and the daemon")
    func squattedStateDirectory() throws {
        let (tree, cli) = try setUp()
        let root = tree.absolutePath("root")
        try tree.makeDirectory("state", mode: 0o755)
        try tree.setOwner("state", squatter)
        let state = tree.absolutePath("state")

        let history = try asVictim(cli, ["history", root, "--state-dir", state])
        expectRefused(history, naming: state, owner: squatter.uid, "history")

        try tree.makeDirectory("run", mode: 0o700)
        try tree.setOwner("run", victim)
        // Launched as a daemon is, so that one which starts after all is stopped, not waited for.
        let daemon = try Daemon.launch(
            cli, root: root, socket: tree.absolutePath("run/control.sock"), as: victim,
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state)", "XDG_RUNTIME_DIR="])
        let run = try daemon.waitForExit(timeout: .seconds(60))
        #expect(run.exitStatus == 1, "\(run)")
        #expect(run.errorText.contains("refusing the state directory"), "\(run)")
        #expect(run.errorText.contains("user \(squatter.uid)"), "\(run)")
    }
}
