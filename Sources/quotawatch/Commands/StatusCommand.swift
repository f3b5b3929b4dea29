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
            and forecast, with the disk level and free space. With --quotas, --state keeps the
            rows in one state and --top N the N most used for their limit.
            With no ROOT and no --socket it lists every root served (one daemon may serve many):
            each root's totals and the socket it answers on, from the default socket directory and
            the --socket of each daemon running.
            Exit status: 0 on success, 1 when no daemon answers or it refuses the request, 64 on
            bad usage.
            """,
        arguments: [
            ArgumentSpec(name: "root", help: "The watched root (default: list every root served).", isOptional: true)
        ],
        options: Options.self, run: run)

    static let json = Flag("--json", help: "Print the report as one JSON object.")
    static let quotas = Flag("--quotas", help: "List the quota directories and the disk level.")
    static let sync = Flag("--sync", help: "Wait until every change made before this call is counted.")
    static let state = Option(
        "--state", value: "<breach|warning|ok>", help: "With --quotas: only the quotas in this state.",
        .quotaState)
    static let topQuotas = TreeSelectionOptions.top.described(
        "Show only the n directories with the most allocated bytes (with --quotas: the n quotas most "
            + "used for their limit).")
    static let timeout = Option(
        "--timeout", value: "<s>", help: "Give up after this many seconds (default 60).", .wholeNumber(in: 1...86_400))

    struct Options: CommandOptions {
        static let declarations =
            DaemonAddressOptions.declarations + [
                StatusCommand.json.spec, StatusCommand.quotas.spec, StatusCommand.sync.spec,
            ]
            + [TreeSelectionOptions.depth.spec, TreeSelectionOptions.path.spec, StatusCommand.topQuotas.spec]
            + [StatusCommand.state.spec]
            + ByteFormatOptions.declarations + [StatusCommand.timeout.spec] + PhoneStorageOptions.declarations

        var address: DaemonAddressOptions
        var json: Bool
        var quotas: Bool
        var sync: Bool
        var selection: TreeSelectionOptions
        /// The tree-row options given, for the rule that they do not go with --quotas.
        var selectionGiven: [String]
        var format: ByteFormatOptions
        var timeout: Int
        var phone: PhoneStorageOptions.Request?
        /// `--state` and `--top` as filters of the quota rows.
        var state: QuotaState?
        var topQuotas: Int?

        init(_ arguments: ParsedArguments) throws(UsageError) {
            state = try arguments.value(StatusCommand.state)
            topQuotas = try arguments.value(StatusCommand.topQuotas)
            selection = try TreeSelectionOptions(arguments, readsPath: true)
            selectionGiven = arguments.given(among: [TreeSelectionOptions.path.spec, TreeSelectionOptions.depth.spec])
            timeout = try arguments.value(StatusCommand.timeout) ?? 60
            format = ByteFormatOptions(arguments)
            address = try DaemonAddressOptions(arguments)
            json = arguments[StatusCommand.json]
            quotas = arguments[StatusCommand.quotas]
            sync = arguments[StatusCommand.sync]
            phone = try PhoneStorageOptions.request(arguments)
        }

        /// `status` alone (its format options aside): the roots served are listed.
        var listsRoots: Bool {
            address.isOmitted && !quotas && !sync && phone == nil && selectionGiven.isEmpty && topQuotas == nil
                && state == nil
        }

        func validate() throws(ValidationError) {
            try format.validate()
            if !listsRoots { try address.validate() }
            if phone != nil && quotas {
                throw ValidationError("'--ios' shows the tree's totals; it does not go with --quotas")
            }
            if quotas, let option = selectionGiven.first {
                throw ValidationError("'\(option)' selects tree rows; it does not go with --quotas")
            }
            if !quotas, let state {
                throw ValidationError(
                    "'--state \(state.rawValue)' filters quota rows: add --quotas (quotawatch status --quotas "
                        + "--state \(state.rawValue))")
            }
        }
    }

    static func run(_ given: Options) throws(UsageError) -> ExitStatus {
        if given.listsRoots {
            return ServedRoots.list(json: given.json, format: given.format.format, timeout: min(given.timeout, 5))
        }
        let socket = given.address.socketPath
        let timeout = given.timeout
        let format = given.format.format
        let phone = try PhoneStorageOptions.measure(given.phone, command: "status")
        if given.quotas {
            return quotas(
                given.address, sync: given.sync, timeout: timeout, json: given.json, format,
                filter: QuotaFilter(state: given.state, top: given.topQuotas))
        }
        let selection = given.selection.selection(json: given.json)
        let request = ControlRequest(.status(.tree(selection)), sync: given.sync)
        let report: StatusReport
        do {
            let reply = try ControlClient.request(socketPath: socket, request, timeout: .seconds(timeout))
            report = try StatusWire.report(from: reply)
        } catch let error as ControlClientError {
            Console.failure(given.address.explain(error))
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
        if given.json {
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

    private static func quotas(
        _ address: DaemonAddressOptions, sync: Bool, timeout: Int, json: Bool, _ format: ByteFormat,
        filter: QuotaFilter
    ) -> ExitStatus {
        var status: QuotaStatus
        do {
            let reply = try ControlClient.request(
                socketPath: address.socketPath, ControlRequest(.status(.quotas), sync: sync), timeout: .seconds(timeout)
            )
            status = try QuotaStatus.decode(reply)
            status.quotas = filter.apply(status.quotas)
        } catch let error as ControlClientError {
            Console.failure(address.explain(error))
            return .failure
        } catch {
            Console.failure("the daemon's answer is not a quota status: \(error)")
            return .failure
        }
        if json {
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
        if let marks = engine.marks {
            line +=
                counted(marks, "mark", "marks") + " over "
                + counted(engine.directories ?? 0, "directory", "directories")
        } else {
            line += counted(engine.watches, "watch", "watches")
        }
        line += ", " + counted(engine.overflows, "overflow", "overflows")
        line += ", " + counted(engine.rescannedDirectories, "directory", "directories") + " re-listed"
        if !engine.degraded.isEmpty {
            line += "; polled (no watch): " + engine.degraded.map(TableRenderer.printable).joined(separator: ", ")
        }
        if let verification = engine.verification {
            line += "\n" + verificationLine(verification)
        }
        for directory in engine.unreadable ?? [] {
            line += "\ndegraded: \(TableRenderer.printable(directory.path)) cannot be read (\(directory.reason))"
        }
        return line
    }

    /// The background sweep: the pass going on or the last one, and what every pass corrected.
    static func verificationLine(_ verification: VerificationReport) -> String {
        let corrected = verification.corrections.values.reduce(0, +)
        var line = "verification: \(verification.checked) names re-stat'ed in \(verification.passes) pass(es)"
        line += ", \(corrected) correction(s) no event had reported"
        if corrected > 0 {
            let reasons = verification.corrections.keys.sorted().filter { verification.corrections[$0]! > 0 }
            line += " (" + reasons.map { "\($0) \(verification.corrections[$0]!)" }.joined(separator: ", ") + ")"
        }
        if let current = verification.current {
            line += "; a pass going on since \(current.started), \(current.checked) checked"
        } else if let last = verification.last, let ended = last.ended {
            line += "; last pass ended \(ended)"
        }
        return line
    }
}
