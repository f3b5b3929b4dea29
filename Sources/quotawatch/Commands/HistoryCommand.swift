import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchHistory
import QuotaWatchPolicy
import QuotaWatchSystem

/// `quotawatch history ROOT`: what a daemon run with `--history` recorded, read from its
/// database while it writes.
enum HistoryCommand {
    static let subcommand = Subcommand(
        name: "history",
        abstract: "Show the recorded events of a root, or a directory's size over time.",
        discussion: """
            Reads history.sqlite from ROOT's state directory, where 'run --history' records it
            next to the audit log of deletions: $STATE_DIRECTORY (or --state-dir), /var/lib/quotawatch
            for root, else $XDG_STATE_HOME/quotawatch or ~/.local/state/quotawatch, then one
            directory per root named as its socket. Works while the daemon writes. Times are a
            span before now (30m, 2h, 1d), 'now', or an ISO-8601 timestamp, local unless it names
            its zone (2026-12-01, 2026-12-01T10:00, 2026-12-01T09:00:00Z); they are shown in local
            time. Exit status: 0; 1 when there is no history or it cannot be read; 64 on bad usage.
            """,
        arguments: [ArgumentSpec(name: "root", help: "The watched root (it need not exist any more).")],
        options: [
            OptionSpec(
                name: "--since", valueName: "<time>", help: "Only from this time on (such as 2h or 2026-12-01)."),
            OptionSpec(name: "--until", valueName: "<time>", help: "Only up to this time."),
            OptionSpec(
                name: "--path", valueName: "<glob>",
                help: "Only events whose path matches, relative to ROOT, such as 'Library/Caches/*' or 'tmp/**'."),
            OptionSpec(
                name: "--event", valueName: "<kind>",
                help: "Only these kinds, such as quota_breach or deletion (comma-separated or repeated)."),
            OptionSpec(
                name: "--growth", valueName: "<path>",
                help: "A directory's sampled sizes over time instead of events (relative to ROOT, '.' for ROOT)."),
            OptionSpec(
                name: "--json",
                help: "Events as JSON lines, as 'run --events jsonl' writes them; --growth as one object."),
            OptionSpec(
                name: "--state-dir", valueName: "<dir>", help: "The state directory run used (as STATE_DIRECTORY)."),
        ] + RootOptions.byteFormatOptions,
        run: run)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitStatus {
        let root = try RootOptions.singleRoot(arguments, command: "history")
        let format = try RootOptions.byteFormat(arguments, command: "history")
        let now = WallTime.now()
        let since = try time(arguments, "--since", now: now)
        let until = try time(arguments, "--until", now: now)
        if let since, let until, since > until {
            throw UsageError(
                message: "--since (\(HistoryTime.local(since, zone: .current))) is after --until "
                    + "(\(HistoryTime.local(until, zone: .current))); swap them",
                command: "history")
        }
        let database = try databasePath(root: root.bytes, stateDirectory: arguments.values["--state-dir"]?.bytes)
        let growth = arguments.values["--growth"]
        if growth != nil, arguments.values["--path"] != nil || arguments.values["--event"] != nil {
            throw UsageError(
                message: "--path and --event select events; --growth shows samples only", command: "history")
        }
        let filter = HistoryFilter(
            since: since, until: until, kinds: try kinds(arguments), path: try pathGlob(arguments))

        do {
            try StateDirectory.checkTrusted(Array(database.dropLast(HistoryStore.fileName.utf8.count + 1)))
        } catch {
            Console.failure("\(error)")
            return .failure
        }
        let store: HistoryStore
        do {
            store = try HistoryStore(readingFrom: database)
        } catch {
            let shown = EscapedName.string(database)
            if (try? FileDescriptor.currentWorkingDirectory.status(of: database)) == nil {
                Console.failure(
                    "no history for \(RootOptions.absolutePath(root.bytes)): \(shown) does not exist. "
                        + "Start the daemon with 'quotawatch run ROOT --history' (with the same STATE_DIRECTORY or "
                        + "--state-dir).")
            } else {
                Console.failure("cannot read the history \(shown): \(error)")
            }
            return .failure
        }
        do {
            if let growth {
                let path = relativePath(growth.bytes, root: root.bytes)
                let samples = try store.samples(path: path, since: since, until: until)
                if samples.isEmpty, !arguments.has("--json") {
                    let known = (try? store.sampledPaths()) ?? []
                    Console.error(
                        "No samples of '\(TableRenderer.printable(path))' in this window. Sampled directories: "
                            + (known.isEmpty ? "none yet" : known.map(TableRenderer.printable).joined(separator: ", "))
                            + "\n")
                }
                if arguments.has("--json") {
                    Console.json(HistoryOutput.growthJSON(path: path, samples))
                } else {
                    Console.out(HistoryOutput.growthTable(path: path, samples, format: format, zone: .current))
                }
            } else {
                let events = try store.events(filter)
                if arguments.has("--json") {
                    Console.json(HistoryOutput.jsonLines(events))
                } else {
                    Console.out(HistoryOutput.lines(events, zone: .current))
                }
            }
        } catch {
            Console.failure("cannot read the history \(EscapedName.string(database)): \(error)")
            return .failure
        }
        return .success
    }

    /// `<state directory of ROOT>/history.sqlite`, found as `run` finds it; `--state-dir`
    /// stands for `STATE_DIRECTORY`.
    static func databasePath(root: [UInt8], stateDirectory: [UInt8]?) throws(UsageError) -> [UInt8] {
        var environment = ProcessInfo.processInfo.environment
        if let stateDirectory {
            environment["STATE_DIRECTORY"] = String(decoding: RootOptions.absoluteBytes(stateDirectory), as: UTF8.self)
        }
        guard
            let directory = StateDirectory.forRoot(
                RootOptions.canonicalBytes(root), environment: environment, userID: ProcessIdentity.effectiveUserID)
        else {
            throw UsageError(
                message: "No state directory: set STATE_DIRECTORY or HOME, or give --state-dir", command: "history")
        }
        return directory + Array("/\(HistoryStore.fileName)".utf8)
    }

    private static func time(
        _ arguments: ParsedArguments, _ name: String, now: WallTime
    ) throws(UsageError) -> WallTime? {
        guard let text = arguments.values[name]?.text else { return nil }
        do {
            return try HistoryTime.parse(text, now: now, zone: .current)
        } catch {
            throw UsageError(message: "Invalid value for '\(name)': \(error)", command: "history")
        }
    }

    private static func kinds(_ arguments: ParsedArguments) throws(UsageError) -> [String] {
        let given = (arguments.allValues["--event"] ?? []).flatMap { $0.text.split(separator: ",").map(String.init) }
        for kind in given where !HistoryQuery.kinds.contains(kind) {
            let hint = HistoryQuery.suggestion(for: kind).map { " Did you mean '\($0)'?" } ?? ""
            throw UsageError(
                message: "Unknown event kind '\(kind)'.\(hint) Kinds: \(HistoryQuery.kinds.joined(separator: ", "))",
                command: "history")
        }
        return given
    }

    private static func pathGlob(_ arguments: ParsedArguments) throws(UsageError) -> PathGlob? {
        guard let text = arguments.values["--path"] else { return nil }
        do {
            return try PathGlob(bytes: text.bytes)
        } catch {
            throw UsageError(message: "Invalid value for '--path': \(error)", command: "history")
        }
    }

    /// A path as the samples name it: relative to ROOT, escaped; an absolute path under ROOT
    /// is made relative.
    static func relativePath(_ path: [UInt8], root: [UInt8]) -> String {
        var relative = path
        let absoluteRoot = RootOptions.absoluteBytes(root)
        if path.first == UInt8(ascii: "/") {
            let absolute = RootOptions.absoluteBytes(path)
            if absolute == absoluteRoot { return "." }
            if absolute.starts(with: absoluteRoot + [UInt8(ascii: "/")]) {
                relative = Array(absolute.dropFirst(absoluteRoot.count + 1))
            }
        }
        let parts = relative.split(separator: UInt8(ascii: "/")).filter { $0 != [UInt8(ascii: ".")] }
        return parts.isEmpty ? "." : EscapedName.string(Array(parts.joined(separator: [UInt8(ascii: "/")])))
    }
}
