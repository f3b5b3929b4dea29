import Foundation
import Glibc

/// Asks a server's HTTP API again every `interval` until `condition` holds for the answer, up
/// to `timeout`: Prometheus and Alertmanager have nothing to wait on but their APIs. Errors
/// while the server starts (a refused connection) are retried; at the deadline the error says
/// what was asked, the last answer, the last error and the server's log.
public func pollAPI<Answer>(
    _ server: String, _ what: String, timeout: Duration, interval: TimeInterval, log: @autoclosure () -> String,
    ask: () throws -> [Answer], until condition: ([Answer]) -> Bool
) throws -> [Answer] {
    let deadline = ContinuousClock.now + timeout
    var last: [Answer] = []
    var lastError: (any Error)?
    while ContinuousClock.now < deadline {
        do {
            last = try ask()
            if condition(last) { return last }
        } catch {
            lastError = error
        }
        Thread.sleep(forTimeInterval: interval)
    }
    throw SystemCallError(
        "waiting for \(server)",
        "\(what) never held within \(timeout); last answer \(last), last error \(lastError.map { "\($0)" } ?? "none")\n\(server.lowercased()) log:\n\(log())",
        errno: ETIMEDOUT)
}
