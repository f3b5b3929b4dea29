import Foundation
import Glibc

/// A real Alertmanager (Debian's `prometheus-alertmanager` package) for one test: a minimal
/// config (one receiver that sends nothing), its own storage directory, clustering off,
/// listening on a free loopback port. Killed and reaped when it goes away.
public final class AlertmanagerServer {
    /// The binary, or nil where the package is not installed (`scripts/test` installs it).
    public static let executable =
        ProcessRunner.findExecutable("prometheus-alertmanager") ?? ProcessRunner.findExecutable("alertmanager")

    public let port: Int
    private let processID: pid_t
    private let errors: StreamCollector
    private let output: StreamCollector
    private var reaped = false

    /// One alert as `GET /api/v2/alerts` lists it.
    public struct Alert: Sendable, CustomStringConvertible {
        public let labels: [String: String]
        public let state: String
        public var description: String { "\(labels["alertname"] ?? "?") \(labels) \(state)" }
    }

    public init(in directory: TempTree) throws {
        guard let executable = Self.executable else {
            throw SystemCallError("prometheus-alertmanager", "not installed", errno: ENOENT)
        }
        port = try FreePort.loopback()
        let config = """
            route:
              receiver: nowhere
              group_wait: 0s
            receivers:
              - name: nowhere

            """
        try directory.writeFile("alertmanager.yml", contents: Array(config.utf8))
        try directory.makeDirectory("data")
        let spawned = try DaemonSpawner.spawn([
            executable, "--config.file=\(directory.absolutePath("alertmanager.yml"))",
            "--storage.path=\(directory.absolutePath("data"))", "--web.listen-address=127.0.0.1:\(port)",
            "--cluster.listen-address=", "--log.level=warn",
        ])
        processID = spawned.processID
        output = StreamCollector(descriptor: spawned.output)
        errors = StreamCollector(descriptor: spawned.errors)
    }

    deinit {
        if !reaped {
            kill(processID, SIGKILL)
            var status: CInt = 0
            while waitpid(processID, &status, 0) == -1 && errno == EINTR {}
        }
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// What Alertmanager wrote on stderr so far, for failure messages.
    public var log: String { String(decoding: errors.snapshot.bytes, as: UTF8.self) }

    /// The alerts it holds that have not ended (`GET /api/v2/alerts`: resolved ones are left out).
    public func alerts() throws -> [Alert] {
        let response = try HTTPGet.request(port: port, path: "/api/v2/alerts", timeoutSeconds: 10)
        guard response.status == 200,
            let list = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
        else {
            throw SystemCallError("alertmanager alerts", "\(response)", errno: EPROTO)
        }
        return list.map { alert in
            Alert(
                labels: alert["labels"] as? [String: String] ?? [:],
                state: (alert["status"] as? [String: Any])?["state"] as? String ?? "?")
        }
    }

    /// Asks again every 100 ms until `condition` holds for the alerts, up to `timeout`:
    /// Alertmanager has nothing to wait on but its API. Connection errors while it starts are
    /// retried.
    @discardableResult
    public func waitFor(
        _ what: String, timeout: Duration = .seconds(60), until condition: ([Alert]) -> Bool
    ) throws -> [Alert] {
        try pollAPI(
            "Alertmanager", what, timeout: timeout, interval: 0.1, log: log, ask: { try alerts() },
            until: condition)
    }

    /// Stops it with SIGTERM and reaps it.
    public func stop() {
        guard !reaped else { return }
        kill(processID, SIGTERM)
        var status: CInt = 0
        while waitpid(processID, &status, 0) == -1 && errno == EINTR {}
        reaped = true
    }
}
