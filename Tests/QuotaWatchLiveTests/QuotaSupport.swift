import Foundation
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// `status --quotas --json`, read with the contract's own shape (the CLI decodes it the same way).
typealias QuotaReply = QuotaStatus

extension QuotaStatus {
    /// The row of `path`; throws when there is none.
    func row(_ path: String) throws -> Row {
        guard let row = quotas.first(where: { $0.path == path }) else {
            throw DaemonError("no quota row for \(path) in \(quotas.map(\.path))")
        }
        return row
    }
}

extension Daemon {
    /// `status --quotas --json --sync`: the quota rows once every change made before is counted.
    func quotas() throws -> QuotaReply {
        let result = try statusCommand(["status", root, "--socket", socketPath, "--quotas", "--json", "--sync"])
        guard result.exitStatus == 0 else { throw DaemonError("status --quotas failed", daemon: self, result: result) }
        do {
            return try JSONDecoder().decode(QuotaReply.self, from: Data(result.standardOutput))
        } catch {
            throw DaemonError("status --quotas printed no quota status: \(error)", daemon: self, result: result)
        }
    }

    /// Waits for the `count`th `event` about `path`.
    @discardableResult
    func waitForEvent(_ event: String, path: String, count: Int = 1) throws -> EngineEventLine {
        try waitForEvent(event, count: count, description: "for \(path)") { $0.path == path }
    }
}
