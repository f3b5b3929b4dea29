import Foundation
import QuotaWatchCleaning
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
        options: Options.self, run: run)

    static let since = Option(
        "--since", value: "<time>", help: "Only from this time on (such as 2h or 2026-12-01).", .historyTime)
    static let until = Option("--until", value: "<time>", help: "Only up to this time.", .historyTime)
    static let path = Option(
        "--path", value: "<glob>",
        help: "Only events whose path matches, relative to ROOT, such as 'Library/Caches/*' or 'tmp/**'.", .pathGlob)
    static let event = Option(
        "--event", value: "<kind>",
        help: "Only these kinds, such as quota_breach or deletion (comma-separated or repeated).", .eventKinds)
    static let growth = Option(
        "--growth", value: "<path>",
        help: "A directory's sampled sizes over time instead of events (relative to ROOT, '.' for ROOT).", .word)
    static let json = Flag(
        "--json", help: "Events as JSON lines, as 'run --events jsonl' writes them; --growth as one object.")
    static let stateDirectory = RunCleanup.stateDirectory.described(
        "The state directory run used (as STATE_DIRECTORY).")

    struct Options: CommandOptions {
        static let declarations =
            [HistoryCommand.since, HistoryCommand.until].map(\.spec) + [
                HistoryCommand.path.spec, HistoryCommand.event.spec,
            ]
            + [HistoryCommand.growth.spec, HistoryCommand.json.spec, HistoryCommand.stateDirectory.spec]
            + ByteFormatOptions.declarations

        var root: CommandLineArgument
        var format: ByteFormatOptions
        var since: WallTime?
        var until: WallTime?
        var stateDirectory: CommandLineArgument?
        var growth: CommandLineArgument?
        var path: PathGlob?
        var kinds: [String]
        /// --path or --event given, which --growth does not go with.
        var selectsEvents: Bool
        var json: Bool

        init(_ arguments: ParsedArguments) throws(UsageError) {
            root = try arguments.single("root")
            format = ByteFormatOptions(arguments)
            since = try arguments.value(HistoryCommand.since)
            until = try arguments.value(HistoryCommand.until)
            stateDirectory = try arguments.value(HistoryCommand.stateDirectory)
            growth = try arguments.value(HistoryCommand.growth)
            kinds = try arguments.values(HistoryCommand.event).flatMap { $0 }
            path = try arguments.value(HistoryCommand.path)
            json = arguments[HistoryCommand.json]
            selectsEvents = !arguments.given(among: [HistoryCommand.path.spec, HistoryCommand.event.spec]).isEmpty
        }

        func validate() throws(ValidationError) {
            try format.validate()
            if let since, let until, since > until {
                throw ValidationError(
                    "--since (\(HistoryTime.local(since, zone: .current))) is after --until "
                        + "(\(HistoryTime.local(until, zone: .current))); swap them")
            }
            if growth != nil, selectsEvents {
                throw ValidationError("--path and --event select events; --growth shows samples only")
            }
        }
    }

    static func run(_ given: Options) throws(UsageError) -> ExitStatus {
        let root = given.root
        let format = given.format.format
        let since = given.since
        let until = given.until
        let database = try databasePath(root: root.bytes, stateDirectory: given.stateDirectory?.bytes)
        let growth = given.growth
        let filter = HistoryFilter(since: since, until: until, kinds: given.kinds, path: given.path)

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
                if samples.isEmpty {
                    let known = (try? store.sampledPaths()) ?? []
                    let shown = TableRenderer.printable(path)
                    let why =
                        known.contains(path)
                        ? "it has none between --since and --until; widen them"
                        : "it is not a sampled directory (history samples the quota directories and ROOT); "
                            + "sampled: "
                            + (known.isEmpty ? "none yet" : known.map(TableRenderer.printable).joined(separator: ", "))
                    Console.failure("no samples of '\(shown)': \(why). Give the path as QuotaWatch prints it")
                    return .failure
                }
                if given.json {
                    Console.json(HistoryOutput.growthJSON(path: path, samples))
                } else {
                    Console.out(HistoryOutput.growthTable(path: path, samples, format: format, zone: .current))
                }
            } else {
                let events = try store.events(filter)
                if given.json {
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

    /// A path as the samples name it: relative to ROOT, escaped; an absolute path under ROOT
    /// is made relative. A path given as QuotaWatch prints it (`Library/Caches/\xff\xfe`,
    /// `back\\slash`) is read back to its bytes first; one that is not a valid escaped form
    /// (`back\slash` typed as is, bytes that are not UTF-8) is taken as it is.
    static func relativePath(_ given: [UInt8], root: [UInt8]) -> String {
        let path = String(validating: given, as: UTF8.self).flatMap(EscapedName.bytes) ?? given
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

extension ValueGrammar where Value == WallTime {
    /// A span before now (30m), `now`, or an ISO-8601 timestamp, local unless it names its zone.
    static var historyTime: Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            do {
                return try HistoryTime.parse(text, now: WallTime.now(), zone: .current)
            } catch {
                throw InvalidValue(message: "Invalid value for '\(option)': \(error)")
            }
        }
    }
}

extension ValueGrammar where Value == PathGlob {
    static var pathGlob: Self {
        Self { word, option throws(InvalidValue) in
            do {
                return try PathGlob(bytes: word.bytes)
            } catch {
                throw InvalidValue(message: "Invalid value for '\(option)': \(error)")
            }
        }
    }
}

extension ValueGrammar where Value == [String] {
    /// Event kinds, comma-separated; an unknown one is refused with the nearest known.
    static var eventKinds: Self {
        Self(completing: .words(HistoryQuery.kinds)) { word, option throws(InvalidValue) in
            let kinds = try word.utf8Text(for: option).split(separator: ",").map(String.init)
            for kind in kinds where !HistoryQuery.kinds.contains(kind) {
                let hint = HistoryQuery.suggestion(for: kind).map { " Did you mean '\($0)'?" } ?? ""
                throw InvalidValue(
                    message: "Unknown event kind '\(kind)'.\(hint) Kinds: \(HistoryQuery.kinds.joined(separator: ", "))"
                )
            }
            return kinds
        }
    }
}
