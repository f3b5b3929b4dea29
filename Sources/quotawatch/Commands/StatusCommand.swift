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
            daemon's counters. With --sync, every change made before the call is reflected.
            Exit status: 0 on success, 1 when no daemon answers, 64 on bad usage.
            """,
        arguments: [
            ArgumentSpec(name: "root", help: "The watched root (default: the only daemon running).", isOptional: true)
        ],
        options: [
            OptionSpec(name: "--socket", valueName: "<path>", help: "The daemon's control socket."),
            OptionSpec(name: "--json", help: "Print the full report as one JSON object."),
            OptionSpec(name: "--sync", help: "Wait until every change made before this call is counted."),
            OptionSpec(name: "--depth", valueName: "<n>", help: "Show directories down to this depth (default 1)."),
            OptionSpec(name: "--iec", help: "Show sizes in KiB, MiB, GiB (powers of 1024)."),
            OptionSpec(name: "--bytes", help: "Show exact byte counts."),
            OptionSpec(name: "--timeout", valueName: "<s>", help: "Give up after this many seconds (default 60)."),
        ],
        run: run)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitStatus {
        let depth = try arguments.integer("--depth", default: 1, in: 0...4096, command: "status")
        let timeout = try arguments.integer("--timeout", default: 60, in: 1...86_400, command: "status")
        let format = try RootOptions.byteFormat(arguments, command: "status")
        if arguments.positionals.count > 1 {
            throw UsageError(message: "Unexpected argument '\(arguments.positionals[1].text)'", command: "status")
        }
        let socket: [UInt8]
        if let explicit = arguments.values["--socket"] {
            socket = explicit.bytes
        } else if let root = arguments.positionals.first {
            socket = SocketPath.defaultPath(forRoot: RootOptions.absoluteBytes(root.bytes))
        } else {
            throw UsageError(message: "Name the watched root or its socket: quotawatch status ROOT", command: "status")
        }

        let reply: [UInt8]
        do {
            reply = try ControlClient.request(
                socketPath: socket, ControlRequest(command: "status", sync: arguments.has("--sync")),
                timeout: .seconds(timeout))
        } catch {
            Console.error("Error: \(error)\n")
            return .failure
        }
        if let message = ControlProtocol.errorMessage(in: reply) {
            Console.error("Error: the daemon answered: \(message)\n")
            return .failure
        }
        if arguments.has("--json") {
            Console.out(String(decoding: reply, as: UTF8.self) + "\n")
            return .success
        }
        guard let report = try? JSONDecoder().decode(StatusReport.self, from: Data(reply)) else {
            Console.error("Error: the daemon's answer is not a status report\n")
            return .failure
        }
        var tree = report.treeReport
        tree.directories.removeAll { row in
            row.path != "." && row.path.split(separator: "/").count > depth
        }
        Console.out(TableRenderer.render(tree, format: format))
        let engine = report.engine
        func counted(_ count: some BinaryInteger, _ singular: String, _ plural: String) -> String {
            "\(count) \(count == 1 ? singular : plural)"
        }
        var line = "engine: " + counted(engine.events, "event", "events") + ", "
        line += counted(engine.watches, "watch", "watches") + ", " + counted(engine.overflows, "overflow", "overflows")
        line += ", " + counted(engine.rescannedDirectories, "directory", "directories") + " re-listed"
        if !engine.degraded.isEmpty { line += "; polled (no watch): " + engine.degraded.joined(separator: ", ") }
        Console.out(line + "\n")
        return .success
    }
}
