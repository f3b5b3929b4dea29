import Foundation
import Glibc

/// A real Prometheus server (Debian's `prometheus` package) for one test: its own config,
/// its own storage directory, listening on a free loopback port. Killed and reaped when it
/// goes away, so no test leaves one behind.
public final class PrometheusServer {
    /// The `prometheus` binary, or nil where the package is not installed.
    public static let executable = ProcessRunner.findExecutable("prometheus")

    public let port: Int
    private let processID: pid_t
    private let errors: StreamCollector
    private let output: StreamCollector
    private var reaped = false

    /// One sample of a query's instant vector.
    public struct Sample: Sendable, CustomStringConvertible {
        public let labels: [String: String]
        public let value: Double
        public var description: String { "\(labels) \(value)" }
    }

    /// Starts Prometheus scraping `targets` (`host:port` each) every second as the job
    /// `quotawatch`, with `ruleFiles` loaded and evaluated every second; its files go in
    /// `directory`.
    public convenience init(scraping targets: [String], ruleFiles: [String] = [], in directory: TempTree) throws {
        let list = targets.map { "'\($0)'" }.joined(separator: ", ")
        try self.init(
            scrapeConfigs: """
                  - job_name: quotawatch
                    scrape_interval: 1s
                    scrape_timeout: 1s
                    static_configs:
                      - targets: [\(list)]

                """, ruleFiles: ruleFiles, in: directory)
    }

    public convenience init(scraping target: String, ruleFiles: [String] = [], in directory: TempTree) throws {
        try self.init(scraping: [target], ruleFiles: ruleFiles, in: directory)
    }

    /// Starts Prometheus with `scrapeConfigs` (the YAML items under `scrape_configs:`, indented
    /// two spaces) and `ruleFiles`, scraping and evaluating every second.
    public init(scrapeConfigs: String, ruleFiles: [String] = [], in directory: TempTree) throws {
        guard let executable = Self.executable else {
            throw SystemCallError("prometheus", "not installed", errno: ENOENT)
        }
        port = try FreePort.loopback()
        let rules = ruleFiles.map { "  - '\($0)'\n" }.joined()
        let config = """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            rule_files:
            \(rules.isEmpty ? "  []\n" : rules)scrape_configs:
            \(scrapeConfigs)
            """
        try directory.writeFile("prometheus.yml", contents: Array(config.utf8))
        try directory.makeDirectory("data")
        let spawned = try DaemonSpawner.spawn([
            executable, "--config.file=\(directory.absolutePath("prometheus.yml"))",
            "--storage.tsdb.path=\(directory.absolutePath("data"))", "--web.listen-address=127.0.0.1:\(port)",
            "--log.level=warn",
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

    /// What Prometheus wrote on stderr so far, for failure messages.
    public var log: String { String(decoding: errors.snapshot.bytes, as: UTF8.self) }

    /// An instant query through the HTTP API (`/api/v1/query`).
    public func query(_ expression: String) throws -> [Sample] {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        let response = try HTTPGet.request(port: port, path: "/api/v1/query?query=\(encoded)", timeoutSeconds: 10)
        guard response.status == 200,
            let document = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            document["status"] as? String == "success", let data = document["data"] as? [String: Any],
            let results = data["result"] as? [[String: Any]]
        else {
            throw SystemCallError("prometheus query", "\(expression): \(response)", errno: EPROTO)
        }
        return results.compactMap { result in
            guard let labels = result["metric"] as? [String: String], let pair = result["value"] as? [Any],
                pair.count == 2, let text = pair[1] as? String, let value = Double(text)
            else { return nil }
            return Sample(labels: labels, value: value)
        }
    }

    /// Asks `expression` again every 200 ms until `condition` holds for its result, up to
    /// `timeout`: Prometheus has nothing to wait on but its API. The last result, or an error
    /// that says what was asked and what came back.
    @discardableResult
    public func waitFor(
        _ expression: String, timeout: Duration = .seconds(60), until condition: ([Sample]) -> Bool
    ) throws -> [Sample] {
        try pollAPI(
            "Prometheus", expression, timeout: timeout, interval: 0.2, log: log, ask: { try query(expression) },
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

/// A loopback TCP port that was free a moment ago, for a server that takes its port on the
/// command line. Another process could take it in between; on loopback in a test run that is
/// rare enough.
public enum FreePort {
    public static func loopback() throws -> Int {
        let descriptor = socket(AF_INET, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallError("socket", "AF_INET", errno: errno) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                guard bind(descriptor, pointer, length) == 0 else { return false }
                return getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw SystemCallError("bind", "127.0.0.1:0", errno: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
