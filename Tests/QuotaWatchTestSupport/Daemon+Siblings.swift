import Foundation
import Glibc

/// The sibling roots of a daemon under test (``SiblingRoots``): their readiness, their events
/// kept apart from the test's, and the check that each is still its own exact root.
extension Daemon {
    /// The event lines in `bytes` that are not a sibling's.
    func ownEventLines(in bytes: [UInt8]) -> [EngineEventLine] {
        let lines = Self.eventLines(in: bytes)
        guard let siblings else { return lines }
        return lines.filter { !siblings.owns($0) }
    }

    /// Waits for a `ready` event from every sibling, so that checking one later compares a
    /// finished crawl.
    func waitForSiblingsReady(timeout: Duration) throws {
        guard let siblings else { return }
        var missing: [String] = []
        let arrived = output.wait(timeout: timeout) { bytes, _ in
            let ready = Set(Self.eventLines(in: bytes).filter { $0.event == "ready" }.compactMap(\.root))
            missing = siblings.members.map(\.rootPath).filter { !ready.contains($0) }
            return missing.isEmpty
        }
        guard arrived else {
            throw DaemonError("no 'ready' event from the sibling root(s) \(missing)", daemon: self)
        }
    }

    /// Every way a sibling root is not exact and isolated now (``SiblingRoots/problems(cli:events:)``),
    /// after a little churn in each; empty for a daemon on its root alone.
    public func siblingProblems() throws -> [String] {
        guard let siblings else { return [] }
        return try siblings.problems(cli: cli, events: allEvents)
    }
}

extension Daemon {
    /// Waits until the test's root stops being served because it failed (deleted, moved away,
    /// refused at start). Alone, that ends the process: its exit. With siblings, only that
    /// root stops: it says so on stderr ("… (N other root(s) still watched)"), its socket is
    /// removed, the process goes on and every sibling is still exact; then the daemon is
    /// stopped with SIGTERM, and its exit (0, as after any signal) returned.
    public func waitForRootToEnd(timeout: Duration = .seconds(30)) throws -> DaemonExit {
        guard let siblings else { return try waitForExit(timeout: timeout) }
        // As the daemon names it: its ready event's root, else (refused at start) its realpath.
        let resolved = realpath(self.root, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        }
        let root = events.first { $0.event == "ready" }?.root ?? resolved ?? self.root
        let others = "\(siblings.members.count) other root(s) still watched)"
        let said = errors.wait(timeout: timeout) { bytes, _ in
            bytes.split(separator: UInt8(ascii: "\n")).contains { line in
                let text = String(decoding: line, as: UTF8.self)
                return text.contains("\(root): ") && text.hasSuffix(others)
            }
        }
        guard said else { throw DaemonError("stderr never said that \(root) ended", daemon: self) }
        guard kill(processID, 0) == 0 else {
            throw DaemonError("the daemon ended with its root; its siblings should have gone on", daemon: self)
        }
        if access(socketPath, F_OK) == 0 {
            throw DaemonError("the ended root's socket \(socketPath) is left behind", daemon: self)
        }
        let problems = try siblingProblems()
        guard problems.isEmpty else {
            throw DaemonError(
                "the siblings did not go on exact:\n\(problems.joined(separator: "\n"))", daemon: self)
        }
        let exit = try stop(SIGTERM)
        guard exit.exitStatus == 0 else {
            throw DaemonError("the siblings' daemon did not exit 0 after SIGTERM\n\(exit)", daemon: self)
        }
        return exit
    }

    /// The exit status a test expects once its root failed: `alone` when the daemon served
    /// only that root (the failure's own status), 0 with siblings (``waitForRootToEnd(timeout:)``
    /// stopped it with SIGTERM after checking them).
    public func exitStatusAfterRootEnded(alone: CInt) -> CInt { siblings == nil ? alone : 0 }
}
