/// One alert hook as configured: a command run for chosen events, off the engine thread.
///
/// The config loader (YAML `hooks:` and `run --hook`) produces these; the hook runner in the
/// engine executes them. The command is an argv list: no shell unless the user writes one.
package struct HookSpec: Sendable, Equatable {
    /// A name for reports and `hook_failed` events; the config's `name`, or derived from argv.
    package var name: String
    /// argv[0] is looked up in PATH when it holds no slash. Bytes, since arguments may be paths.
    package var command: [[UInt8]]
    /// The event kinds this hook wants (`quota_breach`, `level`, …); empty means every kind.
    package var events: Set<String>
    /// A run that outlives this is killed with its whole process group.
    package var timeout: Duration
    /// At most one run per path and event kind within this period; later events for that
    /// pair are dropped (and counted) until it passes, so a `quota_ok` is never swallowed by
    /// the breach just before it. Nil: no limit.
    package var rateLimitPerPath: Duration?
    /// Events waiting while a run is under way; past this, the oldest are dropped and counted.
    package var queueLimit: Int
    /// Whether a waiting event replaces an older waiting one for the same path and kind.
    package var coalescesPerPath: Bool
    /// Where the hook's stdout goes.
    package var standardOutput: Output

    package enum Output: Sendable, Equatable {
        /// `/dev/null`, the default: a hook talks back through its exit status and stderr.
        case discard
        /// The daemon's own stderr, so the line reaches journald.
        case daemonStandardError
        /// Appended to this file.
        case file([UInt8])
    }

    package init(
        name: String, command: [[UInt8]], events: Set<String> = [], timeout: Duration = .seconds(30),
        rateLimitPerPath: Duration? = nil, queueLimit: Int = 64, coalescesPerPath: Bool = true,
        standardOutput: Output = .discard
    ) {
        self.name = name
        self.command = command
        self.events = events
        self.timeout = timeout
        self.rateLimitPerPath = rateLimitPerPath
        self.queueLimit = queueLimit
        self.coalescesPerPath = coalescesPerPath
        self.standardOutput = standardOutput
    }

    package func wants(_ kind: String) -> Bool { events.isEmpty || events.contains(kind) }
}

/// One event as a hook receives it: the JSON line on stdin, and the same fields as
/// `QUOTAWATCH_*` environment variables.
package struct HookEvent: Sendable, Equatable {
    /// The `event` field: `quota_breach`, `level`, `leftover`, …
    package var kind: String
    /// The directory or file the event is about, relative to ROOT; nil for root-wide events.
    package var path: [UInt8]?
    /// The rule the event is about (a quota's glob, a leftover rule's name); nil for others.
    package var rule: String?
    /// The event's JSON object, one line, without a newline.
    package var json: [UInt8]
    /// `QUOTAWATCH_EVENT`, `QUOTAWATCH_PATH`, `QUOTAWATCH_ALLOCATED`, `QUOTAWATCH_LIMIT`, … in
    /// a stable order.
    package var environment: [(name: String, value: String)]

    package init(
        kind: String, path: [UInt8]?, rule: String? = nil, json: [UInt8], environment: [(name: String, value: String)]
    ) {
        self.kind = kind
        self.path = path
        self.rule = rule
        self.json = json
        self.environment = environment
    }

    package static func == (lhs: HookEvent, rhs: HookEvent) -> Bool {
        lhs.kind == rhs.kind && lhs.path == rhs.path && lhs.rule == rhs.rule && lhs.json == rhs.json
            && lhs.environment.elementsEqual(rhs.environment) { $0.name == $1.name && $0.value == $1.value }
    }
}
