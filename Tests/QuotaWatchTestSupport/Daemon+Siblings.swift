import Foundation

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
