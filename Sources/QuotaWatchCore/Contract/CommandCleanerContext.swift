/// What a `command` cleaner gets on stdin (and, but for `candidates`, as `QUOTAWATCH_*`
/// variables): `{"trigger":…,"level":…,"dry_run":B,"run":…,"root":…,"candidates":[{"path",
/// "allocated","rule"}]}`, with the breached directory's `path`, `used`, `effective_limit` and
/// `target` when the run has one. `root` is the daemon's ROOT (absent from `clean-now`
/// without one). The cleaning target writes it; the command reads it.
package struct CommandCleanerContext: Sendable, Hashable, Codable {
    package struct Candidate: Sendable, Hashable, Codable {
        /// Relative to ROOT, escaped (``EscapedName``).
        package var path: String
        package var allocated: UInt64
        package var rule: String

        package init(path: String, allocated: UInt64, rule: String) {
            self.path = path
            self.allocated = allocated
            self.rule = rule
        }
    }

    /// The first trigger's kind.
    package var trigger: String
    package var level: DiskLevel
    package var dryRun: Bool
    package var run: String
    package var root: String?
    package var candidates: [Candidate]
    package var path: String?
    package var used: UInt64?
    package var effectiveLimit: UInt64?
    package var target: UInt64?

    package init(
        trigger: String, level: DiskLevel, dryRun: Bool, run: String, root: String?, candidates: [Candidate],
        path: String? = nil, used: UInt64? = nil, effectiveLimit: UInt64? = nil, target: UInt64? = nil
    ) {
        self.trigger = trigger
        self.level = level
        self.dryRun = dryRun
        self.run = run
        self.root = root
        self.candidates = candidates
        self.path = path
        self.used = used
        self.effectiveLimit = effectiveLimit
        self.target = target
    }

    enum CodingKeys: String, CodingKey {
        case trigger, level, run, root, candidates, path, used, target
        case dryRun = "dry_run"
        case effectiveLimit = "effective_limit"
    }
}
