import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// `quotawatch status [ROOT]`: asks a running daemon for its live tallies.
enum StatusCommand {
    static let subcommand = Subcommand(
        name: "status",
        abstract: "Show the live tallies of a running 'quotawatch run'.",
        discussion: """
            The table and --json have the same shape as 'scan', plus an "engine" object with the
            daemon's counters. The daemon sends only what is asked for: --path picks a subtree,
            --depth how far below it to go (the table: 1, --json and --top: all), --top the
            largest directories only. With --sync, every change made before the call is reflected.
            --quotas lists the quota directories instead: usage, limit, effective limit (scaled by
            the disk level, or the budget share), state, time since the last change, growth rate
            and forecast, with the disk level and free space.
            Exit status: 0 on success, 1 when no daemon answers or it refuses the request, 64 on
            bad usage.
            """,
        arguments: [
            ArgumentSpec(name: "root", help: "The watched root (default: the only daemon running).", isOptional: true)
        ],
        options: [
            OptionSpec(name: "--socket", valueName: "<path>", help: "The daemon's control socket."),
            OptionSpec(name: "--json", help: "Print the report as one JSON object."),
            OptionSpec(name: "--quotas", help: "List the quota directories and the disk level."),
            OptionSpec(name: "--sync", help: "Wait until every change made before this call is counted."),
            OptionSpec(
                name: "--depth", valueName: "<n|all>",
                help: "Show directories down to this depth below --path (table: 1; --json, --top: all)."),
            OptionSpec(
                name: "--path", valueName: "<subdir>",
                help: "Show this directory (relative to the root) and the ones below it."),
            OptionSpec(
                name: "--top", valueName: "<n>", help: "Show only the n directories with the most allocated bytes."),
        ] + RootOptions.byteFormatOptions + [
            OptionSpec(name: "--timeout", valueName: "<s>", help: "Give up after this many seconds (default 60).")
        ] + PhoneStorageOptions.options,
        run: run)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitStatus {
        let selection = try selection(arguments)
        let timeout = try arguments.integer("--timeout", default: 60, in: 1...86_400, command: "status")
        let format = try RootOptions.byteFormat(arguments, command: "status")
        if arguments.positionals.count > 1 {
            throw UsageError(message: "Unexpected argument '\(arguments.positionals[1].text)'", command: "status")
        }
        let socket: [UInt8]
        if let explicit = arguments.values["--socket"] {
            socket = explicit.bytes
        } else if let root = arguments.positionals.first {
            socket = SocketPath.defaultPath(forRoot: RootOptions.canonicalBytes(root.bytes))
        } else {
            throw UsageError(message: "Name the watched root or its socket: quotawatch status ROOT", command: "status")
        }

        let phone = try PhoneStorageOptions.measure(arguments, command: "status")
        if phone != nil && arguments.has("--quotas") {
            throw UsageError(
                message: "'--ios' shows the tree's totals; it does not go with --quotas", command: "status")
        }

        if arguments.has("--quotas") {
            if let option = ["--path", "--depth", "--top"].first(where: { arguments.values[$0] != nil }) {
                throw UsageError(
                    message: "'\(option)' selects tree rows; it does not go with --quotas", command: "status")
            }
            return quotas(socket: socket, sync: arguments.has("--sync"), timeout: timeout, arguments, format)
        }
        let request = ControlRequest(.status(.tree(selection)), sync: arguments.has("--sync"))
        let report: StatusReport
        do {
            let reply = try ControlClient.request(socketPath: socket, request, timeout: .seconds(timeout))
            report = try StatusWire.report(from: reply)
        } catch let error as ControlClientError {
            Console.failure("\(error)")
            return .failure
        } catch {
            Console.failure("the daemon's answer is not a status report: \(error)")
            return .failure
        }
        let storage: PhoneStorage?
        switch phone.map({ PhoneStorageOptions.ask($0, socket: socket, timeout: timeout) }) {
        case .failure(let failure)?:
            Console.failure("\(failure.message)")
            return .failure
        case .success(let measured)?: storage = measured
        case nil: storage = nil
        }
        if arguments.has("--json") {
            Console.json(
                storage.map { PhoneStorageOptions.json(report, $0) + "\n" }
                    ?? String(decoding: report.encodedJSON(), as: UTF8.self) + "\n")
            return .success
        }
        Console.out(TableRenderer.render(report.treeReport, format: format))
        if let storage { Console.out(PhoneStorageOptions.text(storage, format: format)) }
        Console.out(engineLine(report.engine) + "\n")
        return .success
    }

    /// What to ask the daemon for. Defaults keep what earlier versions printed: the table
    /// shows depth 1, --json the whole tree.
    static func selection(
        _ arguments: ParsedArguments, command: String = "status"
    ) throws(UsageError)
        -> TreeSelection
    {
        var selection = TreeSelection()
        if let path = arguments.values["--path"] {
            // Written as status --json shows names; bytes that are not UTF-8 can only be meant
            // as they are.
            let text = String(validating: path.bytes, as: UTF8.self) ?? EscapedName.string(path.bytes)
            switch TreeSelection.subtree(fromEscaped: text) {
            case .success(let subtree):
                selection.subtree = subtree
            case .failure(let error):
                throw UsageError(message: "Invalid value for '--path': \(error)", command: command)
            }
        }
        if arguments.values["--top"] != nil {
            selection.top = try arguments.integer("--top", default: 1, in: 1...1_000_000, command: command)
        }
        switch arguments.values["--depth"]?.text {
        case "all":
            selection.depth = nil
        case nil:
            selection.depth = arguments.has("--json") || selection.top != nil ? nil : 1
        case let text?:
            do {
                selection.depth = try NumberText.wholeNumber(text, in: 0...4096)
            } catch {
                throw UsageError(
                    message: "Invalid value '\(text)' for '--depth': \(error.reason); expected 'all' or a whole number "
                        + "from 0 to 4096",
                    command: command)
            }
        }
        return selection
    }

    private static func quotas(
        socket: [UInt8], sync: Bool, timeout: Int, _ arguments: ParsedArguments, _ format: ByteFormat
    ) -> ExitStatus {
        let status: QuotaStatus
        do {
            let reply = try ControlClient.request(
                socketPath: socket, ControlRequest(.status(.quotas), sync: sync), timeout: .seconds(timeout))
            status = try QuotaStatus.decode(reply)
        } catch let error as ControlClientError {
            Console.failure("\(error)")
            return .failure
        } catch {
            Console.failure("the daemon's answer is not a quota status: \(error)")
            return .failure
        }
        if arguments.has("--json") {
            Console.json(String(decoding: status.encodedJSON(), as: UTF8.self) + "\n")
        } else {
            Console.out(QuotaTable.render(status, format: format))
        }
        return .success
    }

    private static func engineLine(_ engine: EngineReport) -> String {
        func counted(_ count: some BinaryInteger, _ singular: String, _ plural: String) -> String {
            "\(count) \(count == 1 ? singular : plural)"
        }
        var line = "engine: " + counted(engine.events, "event", "events") + ", "
        line += counted(engine.watches, "watch", "watches") + ", " + counted(engine.overflows, "overflow", "overflows")
        line += ", " + counted(engine.rescannedDirectories, "directory", "directories") + " re-listed"
        if !engine.degraded.isEmpty {
            line += "; polled (no watch): " + engine.degraded.map(TableRenderer.printable).joined(separator: ", ")
        }
        return line
    }
}
