import QuotaWatchEngine
import QuotaWatchTestSupport
import Testing

@Suite("engine start-up failures are typed")
struct EngineFailureTests {
    @Test("each start-up failure kind has an exit code of its own, and run-time failures exit 1")
    func distinctExitCodes() {
        let kinds: [EngineFailure] = [.root("r"), .controlSocket("s"), .system("y"), .cleanup("c"), .runtime("t")]
        #expect(Set(kinds.map(\.exitCode)).count == kinds.count)
        #expect(EngineFailure.runtime("t").exitCode == 1)
        // 0 is success; 64 to 66 (usage, a bad or unreadable config) stop the unit's restarts.
        #expect(kinds.allSatisfy { $0.exitCode != 0 && !(64...66).contains($0.exitCode) })
        #expect(EngineFailure.cleanup("the audit log cannot be opened").description == "the audit log cannot be opened")
    }

    @Test("a root that is not there fails as the root, before any socket exists")
    func missingRootIsARootFailure() throws {
        let tree = try TempTree(prefix: "qw-engine-failure")
        let socket = tree.absolutePath("control.sock")
        let engine = LiveEngine(
            options: EngineOptions(
                root: Array(tree.absolutePath("missing").utf8), rootDisplay: "missing", socketPath: Array(socket.utf8)))
        guard case .failure(.root(let message)) = engine.run(progress: nil) else {
            Issue.record("not a root failure")
            return
        }
        #expect(message.contains("missing"), "\(message)")
        #expect(try !tree.exists("control.sock"))
    }

    @Test("a socket below a regular file fails as the control socket")
    func unservableSocketIsASocketFailure() throws {
        let tree = try TempTree(prefix: "qw-engine-failure")
        try tree.makeDirectory("root")
        try tree.writeFile("file", contents: [1])
        let engine = LiveEngine(
            options: EngineOptions(
                root: Array(tree.absolutePath("root").utf8), rootDisplay: "root",
                socketPath: Array(tree.absolutePath("file/control.sock").utf8)))
        guard case .failure(.controlSocket) = engine.run(progress: nil) else {
            Issue.record("not a control socket failure")
            return
        }
    }
}
