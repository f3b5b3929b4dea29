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
        options: Options.self, run: run)

    static let trigger = Option(
        "--trigger", value: "<name>",
        help: "The name the run's manual trigger carries in the summary (default 'manual').", .triggerName)
    static let dryRun = Flag("--dry-run", help: "List what would be removed; remove nothing.")
    static let json = Flag("--json", help: "Print the summary as the daemon's cleanup event (one JSON object).")
    static let timeout = Option(
        "--timeout", value: "<s>", help: "Give up waiting for the run after this long (default 600).",
        .wholeNumber(in: 1...86_400))
    static let top = Option(
        "--top", value: "<n>",
        help: "Paths listed per cleaner (default 20 on a terminal, all otherwise; --json has all).",
        .wholeNumber(in: 0...1_000_000))

    struct Options: CommandOptions {
        static let declarations =
            DaemonAddressOptions.declarations
            + [CleanNowCommand.trigger.spec, CleanNowCommand.dryRun.spec, CleanNowCommand.json.spec]
            + [CleanNowCommand.timeout.spec, CleanNowCommand.top.spec]
            + ByteFormatOptions.declarations

        var address: DaemonAddressOptions
        var trigger: String
        var dryRun: Bool
        var json: Bool
        var timeout: Int
        var top: Int?
        var format: ByteFormatOptions

        init(_ arguments: ParsedArguments) throws(UsageError) {
            address = try DaemonAddressOptions(arguments)
            timeout = try arguments.value(CleanNowCommand.timeout) ?? 600
            trigger = try arguments.value(CleanNowCommand.trigger) ?? "manual"
            dryRun = arguments[CleanNowCommand.dryRun]
            json = arguments[CleanNowCommand.json]
            top = try arguments.value(CleanNowCommand.top)
            format = ByteFormatOptions(arguments)
        }

        func validate() throws(ValidationError) {
            try address.validate()
            try format.validate()
        }
    }

    static func run(_ given: Options) -> ExitStatus {
        let socket = given.address.socketPath
        let timeout = given.timeout
        let request = ControlRequest(.clean(CleanupRunRequest(trigger: given.trigger, dryRun: given.dryRun)))
        let reply: [UInt8]
        do {
            reply = try ControlClient.request(socketPath: socket, request, timeout: .seconds(timeout))
        } catch {
            Console.failure("\(error)")
            return .failure
        }
        if given.json {
            Console.json(String(decoding: reply, as: UTF8.self) + "\n")
            return .success
        }
        guard let summary = try? CleanupSummaryDocument.decode(reply) else {
            Console.failure("the daemon's answer is not a cleanup summary")
            return .failure
        }
        let format = given.format.format
        Console.out(describe(summary, format: format, listed: CappedList.limit(top: given.top)))
        return .success
    }

    /// The summary for people: one line per cleaner with the paths it removed (`listed` of
    /// them), then the run's line, last, where it is seen after a long list. Sizes in the
    /// decimal units of every other command (`--iec`, `--bytes`).
    static func describe(
        _ summary: CleanupSummaryDocument, format: ByteFormat = .decimal, listed: Int? = nil
    ) -> String {
        let verb = summary.dryRun ? "would remove" : "removed"
        var text = ""
        for cleaner in summary.cleaners {
            text += "  \(TableRenderer.printable(cleaner.name)): \(verb) \(cleaner.removed), "
            text += "freeing \(format.string(cleaner.freed))"
            if let error = cleaner.error { text += "; error: \(TableRenderer.printable(error))" }
            text += "\n"
            text += CappedList.lines(cleaner.paths.map { TableRenderer.printable($0) }, limit: listed, indent: "    ")
            let reasons = cleaner.skipped.sorted {
                $0.value.count == $1.value.count ? $0.key < $1.key : $0.value.count > $1.value.count
            }
            for (reason, kept) in reasons {
                text += "    kept \(kept.count): \(TableRenderer.printable(reason))"
                if let example = kept.examples.first {
                    text += " (\(TableRenderer.printable(example))\(kept.count > 1 ? ", …" : ""))"
                }
                text += "\n"
            }
        }
        text += "cleanup \(summary.run): \(verb) \(summary.removed) name(s), "
        // As the summary wrote it: at most three decimals, an integer without a point.
        text += "freeing \(format.string(summary.freed)) in \(PolicyJSON.numberText(summary.seconds)) s"
        text += summary.dryRun ? " (dry run: nothing was removed)\n" : "\n"
        return text
    }
}

extension ValueGrammar where Value == String {
    /// A manual run's trigger name, as ``CleanupRunRequest/isValidName(_:)`` allows.
    static var triggerName: Self {
        Self { word, _ throws(InvalidValue) in
            guard let text = String(validating: word.bytes, as: UTF8.self), CleanupRunRequest.isValidName(text) else {
                throw InvalidValue(
                    message: "Invalid trigger name '\(word.shown)': use 1 to 64 letters, digits, '-', '_' or '.'")
            }
            return text
        }
    }
}
