import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// The options of the engine, which `run` and `watch ROOT` both take: an option declared here
/// or in one of the groups joined here works in both.
struct EngineArguments: Sendable {
    /// The stream `--events` writes; one format so far.
    enum EventFormat: String, Sendable, CaseIterable {
        case jsonl
    }

    static let socket = Option(
        "--socket", value: "<path>", help: "Control socket path (default: see above).", .word)
    static let events = Option(
        "--events", value: "<format>",
        help: "Write engine events to stdout; the only format is 'jsonl' (one JSON object per line).", .eventFormat)
    static let trace = Flag("--trace", help: "Print every inotify event to stderr, named as inotifywait names them.")
    static let oneFileSystem = ScanCommand.oneFileSystem
    static let workers = ScanCommand.workers.described(
        "Threads for the first crawl (default: one per core, at least 2).")
    static let settle = Option(
        "--settle", value: "<ms>", help: "Re-stat a file under writes at most this often (default 20).",
        .wholeNumber(in: 1...10_000))
    static let pollInterval = Option(
        "--poll-interval", value: "<s>", help: "Re-list unwatchable subtrees this often (default 2).",
        .wholeNumber(in: 1...3600))
    static let verifyEvery = Option(
        "--verify-every", value: "<duration>",
        help: "Stat the whole tree again in the background this often, to correct what no event reported "
            + "(default 6h; 0 turns it off).", .timeSpanOrZero(in: ValueRanges.verifyEvery))
    static let verifyBudget = Option(
        "--verify-budget", value: "<percent>",
        help: "The share of one core the background re-stat may use (default 1%).", .share(in: ValueRanges.verifyBudget)
    )
    static let backend = Option(
        "--backend", value: "<auto|inotify|fanotify>", help: "How changes are seen (default auto).", .backendChoice)

    /// This group's own, then the groups it joins.
    static let declarations: [OptionSpec] = [
        [socket.spec, events.spec, trace.spec, oneFileSystem.spec, backend.spec],
        [workers.spec, settle.spec, pollInterval.spec, verifyEvery.spec, verifyBudget.spec],
        RunPolicy.declarations,
        RunCleanup.declarations,
        RunHistory.declarations,
        RunMetrics.declarations,
        RunService.declarations,
    ].flatMap { $0 }

    var socket: CommandLineArgument?
    /// Every `--socket` given: with several roots, one per root in the roots' order.
    var sockets: [CommandLineArgument]
    var events: EventFormat?
    var trace: Bool
    var oneFileSystem: Bool
    var workers: Int
    var settle: Int
    var pollInterval: Int
    /// The verification sweep (`--verify-every`, `--verify-budget`).
    var verification: VerificationSweep.Settings
    var backend: BackendChoice
    var policy: RunPolicy.Options
    var cleanup: RunCleanup.Options
    var history: RunHistory.Options
    var metrics: RunMetrics.Options
    var logLevel: LogLevel?
    /// The names of the engine options given, in declaration order (`watch` names those a
    /// daemon it attaches to makes moot).
    var given: [String]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        logLevel = try arguments.value(RunService.logLevel)
        sockets = try arguments.values(Self.socket)
        socket = sockets.last
        events = try arguments.value(Self.events)
        trace = arguments[Self.trace]
        oneFileSystem = arguments[Self.oneFileSystem]
        workers = try arguments.value(Self.workers) ?? CrawlOptions().workers
        settle = try arguments.value(Self.settle) ?? 20
        pollInterval = try arguments.value(Self.pollInterval) ?? 2
        verification = VerificationSweep.Settings()
        if let every = try arguments.value(Self.verifyEvery) { verification.every = every }
        if let budget = try arguments.value(Self.verifyBudget) { verification.cpuBudget = budget }
        backend = try arguments.value(Self.backend) ?? .auto
        policy = try RunPolicy.Options(arguments)
        cleanup = try RunCleanup.Options(arguments)
        history = try RunHistory.Options(arguments)
        metrics = try RunMetrics.Options(arguments)
        given = arguments.given(among: Self.declarations)
    }

    func validate() throws(ValidationError) { try history.validate() }
}

extension ValueGrammar where Value == BackendChoice {
    static var backendChoice: Self {
        Self(completing: .words(Value.allCases.map(\.rawValue))) { word, option throws(InvalidValue) in
            guard let choice = Value(rawValue: word.text) else {
                throw InvalidValue(
                    message: "Unknown backend '\(word.shown)' for \(option): use auto, inotify or "
                        + "fanotify")
            }
            return choice
        }
    }
}

extension ValueGrammar where Value == EngineArguments.EventFormat {
    static var eventFormat: Self {
        Self(completing: .words(Value.allCases.map(\.rawValue))) { word, _ throws(InvalidValue) in
            guard let format = Value(rawValue: word.text) else {
                throw InvalidValue(message: "Unknown event format '\(word.shown)': the only format is 'jsonl'")
            }
            return format
        }
    }
}
