import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// `quotawatch clean-now ROOT`: asks the running daemon to run every cleaner now and prints
/// the run's summary when it ends.
enum CleanNowCommand {
    static let subcommand = Subcommand(
        name: "clean-now",
        abstract: "Run every cleaner of a running daemon now and print what the run removed.",
        discussion: """
            The daemon plans the run from its live tree (every quota directory above its
            eviction target, every leftover, every expired file) and answers when the run has
            ended. A daemon started without --clean, or with --dry-run, removes nothing and lists
            what it would remove; so does this command with --dry-run. Exit status: 0 when the
            run ended (a cleaner's error is in its summary), 1 when the daemon could not be
            asked, 64 on bad usage.
            """,
        arguments: [
            ArgumentSpec(name: "root", help: "The watched root (default: given by --socket).", isOptional: true)
        ],
        options: [
            OptionSpec(name: "--socket", valueName: "<path>", help: "The daemon's control socket."),
            OptionSpec(
                name: "--trigger", valueName: "<name>",
                help: "The name the run's manual trigger carries in the summary (default 'manual')."),
            OptionSpec(name: "--dry-run", help: "List what would be removed; remove nothing."),
            OptionSpec(name: "--json", help: "Print the summary as the daemon's cleanup event (one JSON object)."),
            OptionSpec(
                name: "--timeout", valueName: "<s>", help: "Give up waiting for the run after this long (default 600)."),
            OptionSpec(
                name: "--top", valueName: "<n>",
                help: "Paths listed per cleaner (default 20 on a terminal, all otherwise; --json has all)."),
        ] + RootOptions.byteFormatOptions,
        run: run)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitStatus {
        if arguments.positionals.count > 1 {
            throw UsageError(message: "Unexpected argument '\(arguments.positionals[1].text)'", command: "clean-now")
        }
        let timeout = try arguments.integer("--timeout", default: 600, in: 1...86_400, command: "clean-now")
        let trigger = arguments.values["--trigger"]?.text ?? "manual"
        guard CleanRequest.isValidName(trigger) else {
            throw UsageError(
                message: "Invalid trigger name '\(trigger)': use 1 to 64 letters, digits, '-', '_' or '.'",
                command: "clean-now")
        }
        let socket: [UInt8]
        if let explicit = arguments.values["--socket"] {
            socket = explicit.bytes
        } else if let root = arguments.positionals.first {
            socket = SocketPath.defaultPath(forRoot: RootOptions.canonicalBytes(root.bytes))
        } else {
            throw UsageError(
                message: "Name the watched root or its socket: quotawatch clean-now ROOT", command: "clean-now")
        }
        let request = ControlRequest(.clean(CleanRequest(trigger: trigger, dryRun: arguments.has("--dry-run"))))
        let reply: [UInt8]
        do {
            reply = try ControlClient.request(socketPath: socket, request, timeout: .seconds(timeout))
        } catch {
            Console.failure("\(error)")
            return .failure
        }
        if arguments.has("--json") {
            Console.json(String(decoding: reply, as: UTF8.self) + "\n")
            return .success
        }
        guard let summary = try? JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any] else {
            Console.failure("the daemon's answer is not a cleanup summary")
            return .failure
        }
        let top: Int? =
            arguments.values["--top"] != nil
            ? try arguments.integer("--top", default: 20, in: 0...1_000_000, command: "clean-now") : nil
        let format = try RootOptions.byteFormat(arguments, command: "clean-now")
        Console.out(describe(summary, format: format, listed: CappedList.limit(top: top)))
        return .success
    }

    /// The summary for people: one line per cleaner with the paths it removed (`listed` of
    /// them), then the run's line, last, where it is seen after a long list. Sizes in the
    /// decimal units of every other command (`--iec`, `--bytes`).
    static func describe(_ summary: [String: Any], format: ByteFormat = .decimal, listed: Int? = nil) -> String {
        let dryRun = summary["dry_run"] as? Bool ?? false
        let verb = dryRun ? "would remove" : "removed"
        func number(_ value: Any?) -> UInt64 { (value as? NSNumber)?.uint64Value ?? 0 }
        var text = ""
        for cleaner in summary["cleaners"] as? [[String: Any]] ?? [] {
            text +=
                "  \(TableRenderer.printable(cleaner["name"] as? String ?? "?")): \(verb) \(number(cleaner["removed"])), "
            text += "freeing \(format.string(number(cleaner["freed"])))"
            if let error = cleaner["error"] as? String { text += "; error: \(TableRenderer.printable(error))" }
            text += "\n"
            let paths = (cleaner["paths"] as? [String] ?? []).map { TableRenderer.printable($0) }
            text += CappedList.lines(paths, limit: listed, indent: "    ")
        }
        text += "cleanup \(summary["run"] as? String ?? "?"): \(verb) \(number(summary["removed"])) name(s), "
        text += "freeing \(format.string(number(summary["freed"]))) in \(summary["seconds"] ?? 0) s"
        text += dryRun ? " (dry run: nothing was removed)\n" : "\n"
        return text
    }
}
