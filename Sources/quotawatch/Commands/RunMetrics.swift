import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// `run`'s Prometheus options: `/metrics` over HTTP, and a file for node_exporter's textfile
/// collector. Both show the snapshot one ``MetricsExporter`` publishes from the engine.
enum RunMetrics {
    static let options = [
        OptionSpec(
            name: "--metrics-listen", valueName: "<host:port>",
            help: "Serve Prometheus metrics at http://HOST:PORT/metrics, such as 127.0.0.1:9187, [::1]:9187, "
                + "localhost:9187, or :9187 for every IPv4 and IPv6 address; port 0 picks a free one (stderr says which)."
        ),
        OptionSpec(
            name: "--metrics-textfile", valueName: "<file.prom>",
            help: "Write the same metrics to this file, atomically, for node_exporter's textfile collector."),
        OptionSpec(
            name: "--metrics-interval", valueName: "<s>",
            help: "Write the --metrics-textfile at most this often (default 10)."),
    ]

    /// What `run` stops once the engine has returned.
    final class Running {
        fileprivate var server: HTTPServer?
        fileprivate var textfile: MetricsTextfile?

        /// `quotawatch: metrics at http://HOST:PORT/metrics`, once serving; nil without
        /// --metrics-listen.
        var announcement: String? {
            server.map { server in
                let scope =
                    !server.address.isEveryAddress
                    ? ""
                    : server.address.family == .ipv6
                        ? "on every IPv4 and IPv6 address, " : "on every IPv4 address (this machine has no IPv6), "
                return "quotawatch: \(scope)metrics at http://\(server.address)/metrics"
            }
        }

        func stop() {
            server?.stop()
            textfile?.stop()
        }
    }

    /// Adds the exporter to `options` and starts the server and the file writer. A bad value is
    /// a usage error; a start that fails (a port in use, a file that cannot be written) is
    /// reported here and gives nil. `announces`: say on stderr where the metrics are served
    /// (`watch`'s screen shows ``Running/announcement`` instead, which stderr would be hidden behind).
    static func start(
        _ arguments: ParsedArguments, adding options: inout EngineOptions, command: String = "run",
        announces: Bool = true
    ) throws(UsageError)
        -> Running?
    {
        let running = Running()
        let listen = arguments.values["--metrics-listen"]
        let file = arguments.values["--metrics-textfile"]
        let interval = try arguments.integer("--metrics-interval", default: 10, in: 1...86_400, command: command)
        guard listen != nil || file != nil else { return running }

        var address: TCPAddress?
        if let listen {
            do {
                address = try TCPAddress(parsing: listen.text)
            } catch {
                throw UsageError(message: "Invalid value for '--metrics-listen': \(error)", command: command)
            }
        }
        if let file {
            let name = file.bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []
            guard name.count > 5, name.suffix(5).elementsEqual(".prom".utf8) else {
                throw UsageError(
                    message: "Invalid value '\(file.text)' for '--metrics-textfile': node_exporter's textfile "
                        + "collector reads only files named *.prom; give a path such as /var/lib/node_exporter/quotawatch.prom",
                    command: command)
            }
            let textfile = MetricsTextfile(path: file.bytes, minimumInterval: .seconds(interval))
            do {
                // Written before the crawl (ready 0), so a path that cannot be written stops the
                // start with the reason instead of a warning later.
                var first = MetricsSnapshot(version: QuotaWatchCLI.version, root: options.rootDisplay)
                first.host = HostName.current()
                try textfile.writeNow(first)
            } catch {
                Console.error(
                    "Error: cannot write the metrics file '\(file.text)': \(error); its directory must exist and "
                        + "be writable (node_exporter reads the directory given to --collector.textfile.directory)\n")
                return nil
            }
            textfile.start()
            running.textfile = textfile
        }
        let textfile = running.textfile
        let exporter = MetricsExporter(version: QuotaWatchCLI.version, root: options.rootDisplay) { snapshot in
            textfile?.offer(snapshot)
        }
        options.observers.append(exporter)

        if let address {
            do {
                let listener = try TCPListener.listen(on: address)
                running.server = try HTTPServer(
                    listener: listener, path: "/metrics", contentType: PrometheusText.contentType
                ) {
                    Array(PrometheusText.render(exporter.snapshot.snapshot).utf8)
                }
            } catch let error as Errno {
                running.stop()
                Console.error("Error: cannot listen on \(address) for --metrics-listen: \(error)\(advice(error))\n")
                return nil
            } catch {
                running.stop()
                Console.error("Error: \(error)\n")
                return nil
            }
            if announces, let announcement = running.announcement { Console.error(announcement + "\n") }
        }
        return running
    }

    private static func advice(_ error: Errno) -> String {
        switch error {
        case .addressInUse: "; another program listens there: pick another port (or 0 for any free one)"
        case .permissionDenied: "; ports below 1024 need privileges: pick a port above 1023"
        case .addressNotAvailable: "; that address is not one of this machine's (use 127.0.0.1 or [::1])"
        case .addressFamilyNotSupported: "; this machine has no IPv6 (use 127.0.0.1)"
        default: ""
        }
    }
}
