import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import Synchronization

/// `run`'s Prometheus options: `/metrics` over HTTP, and a file for node_exporter's textfile
/// collector. Both show the snapshot one ``MetricsExporter`` publishes from the engine.
enum RunMetrics {
    static let listen = Option(
        "--metrics-listen", value: "<host:port>",
        help: "Serve Prometheus metrics at http://HOST:PORT/metrics, such as 127.0.0.1:9187, [::1]:9187, "
            + "localhost:9187, or :9187 for every IPv4 and IPv6 address; port 0 picks a free one (stderr says which).",
        .tcpAddress)
    static let textfile = Option(
        "--metrics-textfile", value: "<file.prom>",
        help: "Write the same metrics to this file, atomically, for node_exporter's textfile collector.",
        .promFile)
    static let interval = Option(
        "--metrics-interval", value: "<s>", help: "Write the --metrics-textfile at most this often (default 10).",
        .wholeNumber(in: 1...86_400))
    static let declarations = [listen.spec, textfile.spec, interval.spec]

    struct Options: Sendable {
        var listen: TCPAddress?
        var textfile: CommandLineArgument?
        var interval: Int

        init(_ arguments: ParsedArguments) throws(UsageError) {
            listen = try arguments.value(RunMetrics.listen)
            textfile = try arguments.value(RunMetrics.textfile)
            interval = try arguments.value(RunMetrics.interval) ?? 10
        }
    }

    /// What `run` stops once the engine has returned.
    final class Running {
        fileprivate var server: HTTPServer?
        fileprivate var textfile: MetricsTextfile?
        /// Every root's exporter; nil without metrics.
        fileprivate var board: ExporterBoard?

        /// Gives a root its exporter on the endpoint and the file: each root at start, and one
        /// served from then on (a directory that came to match `roots:`).
        var exporters: ExporterAdder { ExporterAdder(board: board, textfile: textfile) }

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

    /// Adds the exporter to `options` and starts the server and the file writer (the values
    /// were checked when the command line was parsed). A start that fails (a port in use, a
    /// file that cannot be written) is reported here and gives nil. `announces`: say on stderr where the metrics are served
    /// (`watch`'s screen shows ``Running/announcement`` instead, which stderr would be hidden behind).
    static func start(_ given: Options, adding options: inout EngineOptions, announces: Bool = true) -> Running? {
        var all = [options]
        defer { options = all[0] }
        return start(given, adding: &all, announces: announces)
    }

    /// One exporter per root, and one endpoint and one file that show every root's series,
    /// each with its `root` label.
    static func start(_ given: Options, adding all: inout [EngineOptions], announces: Bool = true) -> Running? {
        let running = Running()
        guard given.listen != nil || given.textfile != nil else { return running }
        if let file = given.textfile {
            let textfile = MetricsTextfile(path: file.bytes, minimumInterval: .seconds(given.interval))
            do {
                // Written before the crawl (ready 0), so a path that cannot be written stops the
                // start with the reason instead of a warning later.
                let host = HostName.current()
                try textfile.writeNow(
                    all.map { options in
                        var first = MetricsSnapshot(version: QuotaWatchCLI.version, root: options.rootDisplay)
                        first.host = host
                        return first
                    })
            } catch {
                Console.failure(
                    "cannot write the metrics file '\(file.text)': \(error); its directory must exist and "
                        + "be writable (node_exporter reads the directory given to --collector.textfile.directory)")
                return nil
            }
            textfile.start()
            running.textfile = textfile
        }
        let board = ExporterBoard()
        running.board = board
        for index in all.indices { running.exporters.add(to: &all[index]) }

        if let address = given.listen {
            do {
                let listener = try TCPListener.listen(on: address)
                running.server = try HTTPServer(
                    listener: listener, path: "/metrics", contentType: PrometheusText.contentType
                ) {
                    Array(PrometheusText.render(board.snapshots).utf8)
                }
            } catch let error as Errno {
                running.stop()
                Console.failure("cannot listen on \(address) for --metrics-listen: \(error)\(advice(error))")
                return nil
            } catch {
                running.stop()
                Console.failure("\(error)")
                return nil
            }
            if announces, let announcement = running.announcement { Console.error(announcement + "\n") }
        }
        return running
    }

    /// Adds a root's exporter to the endpoint and the file; does nothing without metrics.
    struct ExporterAdder: Sendable {
        fileprivate let board: ExporterBoard?
        fileprivate let textfile: MetricsTextfile?

        func add(to options: inout EngineOptions) {
            guard let board else { return }
            let textfile = self.textfile
            let exporter = MetricsExporter(version: QuotaWatchCLI.version, root: options.rootDisplay) { _ in
                textfile?.offer(board.snapshots)
            }
            board.exporters.withLock { $0.append(exporter) }
            options.observers.append(exporter)
        }
    }

    /// Every root's exporter, in the order the roots were given: what a scrape and the file show.
    fileprivate final class ExporterBoard: Sendable {
        let exporters = Mutex<[MetricsExporter]>([])
        var snapshots: [MetricsSnapshot] { exporters.withLock { $0 }.map(\.snapshot.snapshot) }
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

extension ValueGrammar where Value == TCPAddress {
    /// HOST:PORT, such as 127.0.0.1:9187 or [::1]:9187.
    static var tcpAddress: Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            do {
                return try TCPAddress(parsing: text)
            } catch {
                throw InvalidValue(message: "Invalid value for '\(option)': \(error)")
            }
        }
    }
}

extension ValueGrammar where Value == CommandLineArgument {
    /// A path whose last component is NAME.prom, the only files node_exporter's textfile
    /// collector reads.
    static var promFile: Self {
        Self(completing: .files) { word, option throws(InvalidValue) in
            let name = word.bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []
            guard name.count > 5, name.suffix(5).elementsEqual(".prom".utf8) else {
                throw InvalidValue(
                    message: "Invalid value '\(word.shown)' for '\(option)': node_exporter's textfile collector reads "
                        + "only files named *.prom; give a path such as /var/lib/node_exporter/quotawatch.prom")
            }
            return word
        }
    }
}
