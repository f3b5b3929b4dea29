import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// Builds, on the engine thread, what each configured cleaner gets for one trigger, by the
/// trigger → cleaner table of ``CleanupMatrix``.
///
/// A breach confines every cleaner to the breached directory: eviction takes it down to its
/// target, and the leftover, expiry and trim cleaners look only inside it, so a breach costs
/// O(names in that directory). A `leftover` trigger concerns the one file it names. The other
/// triggers (level, periodic, app version, by hand) look at the whole tree, and evict only
/// where a quota asks: a directory over its effective limit (by hand: in warning or breach).
struct CleanupPlanner {
    let settings: CleanupSettings
    let monitor: PolicyMonitor?
    let level: DiskLevel
    let now: UInt64
    /// The wall clock's reading (ns since the epoch), for the ages of `older-than` leftovers.
    let wallNow: Int64
    let opens: OpenLog
    /// Files below a directory, built once per trigger and directory, shared by the cleaners.
    private var filesCache: [DirectoryID: [CleanupCandidate]] = [:]
    /// The rule a breached directory broke (its glob), for its warning line.
    private(set) var breachedRule: String?
    /// The cleaners registered on the control socket now, each planned for with its paths.
    var registrations: [RegisteredCleaners.Registration] = []

    init(
        settings: CleanupSettings, monitor: PolicyMonitor?, level: DiskLevel, now: UInt64, opens: OpenLog,
        wallNow: Int64 = WallClock.nanosecondsSinceEpoch()
    ) {
        self.opens = opens
        self.settings = settings
        self.monitor = monitor
        self.level = level
        self.now = now
        self.wallNow = wallNow
    }

    mutating func plan(
        for trigger: CleanupTrigger, live: inout LiveTree<some LiveFileSystem>,
        breach: (size: SizeKind, effectiveLimit: UInt64, rule: String)? = nil
    ) -> CleanupPlan {
        filesCache = [:]
        breachedRule = nil
        var scope = live.tree.root
        var breached: CleanupDirectory?
        if case .breach(let path) = trigger {
            let nothing = CleanupPlan(level: level, jobs: settings.cleaners.map { _ in [] })
            // Gone since the event: nothing to clean.
            guard let directory = live.tree.directory(atComponents: PathComponents.split(path)) else { return nothing }
            scope = directory
            let tally = live.tree.tally(of: directory)
            var breach = breach
            if monitor != nil {
                // The breach must still stand now, at the limit in force now: a level that
                // went back to normal in the same turn raised the limit above the use.
                guard let standing = standingBreach(of: path, tally: tally) else { return nothing }
                breach = standing
            }
            breachedRule = breach?.rule
            let size = breach?.size ?? .allocated
            breached = CleanupDirectory(
                path: path, used: size == .allocated ? tally.allocated : tally.apparent, size: size,
                effectiveLimit: breach?.effectiveLimit ?? 0, tally: tally)
        }
        var jobs: [[CleanupInputs]] = []
        for spec in settings.cleaners {
            guard CleanupMatrix.calls(spec, for: trigger) else {
                jobs.append([])
                continue
            }
            switch spec {
            case .leftovers:
                let candidates = leftovers(for: trigger, within: scope, live: &live)
                jobs.append(candidates.isEmpty ? [] : [CleanupInputs(level: level, candidates: candidates)])
            case .evict(_, let glob, _, let ratio):
                jobs.append(
                    evictions(
                        glob: glob, ratio: ratio, breached: breached, line: CleanupMatrix.evictionLine(for: trigger),
                        scope: scope, live: &live))
            case .trim(_, let glob, let limit):
                var inputs: [CleanupInputs] = []
                let directories =
                    breached == nil
                    ? live.directories(matching: glob)
                    : live.tree.subtree(of: scope).filter { glob.matches(live.tree.relativePath(of: $0)) }
                for directory in directories where live.tree.tally(of: directory).allocated > limit {
                    let tally = live.tree.tally(of: directory)
                    inputs.append(
                        CleanupInputs(
                            level: level,
                            directory: CleanupDirectory(
                                path: live.tree.relativePath(of: directory), used: tally.allocated,
                                effectiveLimit: limit, target: limit, tally: tally),
                            candidates: files(below: directory, live: &live)))
                }
                jobs.append(inputs)
            case .expire(let name, let glob, _):
                let candidates = live.cleanupEntries(
                    matching: glob, within: scope, rule: name, directories: false, filesBelowMatches: true)
                jobs.append(candidates.isEmpty ? [] : [CleanupInputs(level: level, candidates: candidates)])
            case .registered:
                jobs.append([])
            case .command:
                let candidates = breached == nil ? [] : files(below: scope, live: &live)
                jobs.append([CleanupInputs(level: level, directory: breached, candidates: candidates)])
            }
        }
        var plan = CleanupPlan(level: level, jobs: jobs)
        if !registrations.isEmpty { plan.registered = registeredInputs(for: trigger, breached: breached, live: &live) }
        plan.directoryFiles = directoryFiles(of: plan, live: &live)
        return plan
    }

    /// The rule of `path` broken now, with its limit in force (the lowest, when several are);
    /// nil when the directory is within every one of its limits.
    private func standingBreach(
        of path: [UInt8], tally: Tally
    ) -> (size: SizeKind, effectiveLimit: UInt64, rule: String)? {
        guard let monitor else { return nil }
        var found: (size: SizeKind, effectiveLimit: UInt64, rule: String)?
        for row in monitor.quotaRows(level: level, atNanoseconds: now) where row.path == path {
            let used = row.size == .allocated ? tally.allocated : tally.apparent
            guard used > row.effectiveLimit, row.effectiveLimit < found?.effectiveLimit ?? .max else { continue }
            found = (row.size, row.effectiveLimit, row.rule)
        }
        return found
    }

    /// The files below every directory the plan hands a cleaner, so that each cleaner after the
    /// first sees the directory's use after the removals before it (``CleanupPlan/settle(_:after:)``).
    private mutating func directoryFiles(
        of plan: CleanupPlan, live: inout LiveTree<some LiveFileSystem>
    ) -> [[UInt8]: [CleanupCandidate]] {
        var found: [[UInt8]: [CleanupCandidate]] = [:]
        let inputs = Array(plan.jobs.joined()) + Array(plan.registered.values)
        for case let directory? in inputs.map({ $0.directory }) where found[directory.path] == nil {
            guard let id = live.tree.directory(atComponents: PathComponents.split(directory.path)) else { continue }
            found[directory.path] = files(below: id, live: &live)
        }
        return found
    }

    /// The breached directory when the glob takes it; otherwise every quota directory the
    /// glob takes that is past `line` now: over its effective limit, or (by hand) in `warning`
    /// or `breach` under any of its rules.
    private mutating func evictions(
        glob: PathGlob?, ratio: Double, breached: CleanupDirectory?, line: CleanupMatrix.EvictionLine,
        scope: DirectoryID, live: inout LiveTree<some LiveFileSystem>
    ) -> [CleanupInputs] {
        if var breached {
            guard glob?.matches(breached.path) ?? true else { return [] }
            breached.target = target(breached.effectiveLimit, ratio, rule: breachedRule)
            return [CleanupInputs(level: level, directory: breached, candidates: files(below: scope, live: &live))]
        }
        guard let monitor else { return [] }
        // A directory under several rules is cleaned to the lowest of their limits.
        var limits: [[UInt8]: (limit: UInt64, size: SizeKind, rule: String)] = [:]
        var pastWarning: Set<[UInt8]> = []
        for row in monitor.quotaRows(level: level, atNanoseconds: now)
        where glob?.matches(row.path) ?? true {
            if row.state != .ok { pastWarning.insert(row.path) }
            if let known = limits[row.path], known.limit <= row.effectiveLimit { continue }
            limits[row.path] = (row.effectiveLimit, row.size, row.rule)
        }
        var inputs: [CleanupInputs] = []
        for path in limits.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let (limit, size, rule) = limits[path]!
            guard let directory = live.tree.directory(atComponents: PathComponents.split(path)) else { continue }
            let tally = live.tree.tally(of: directory)
            let used = size == .allocated ? tally.allocated : tally.apparent
            let target = target(limit, ratio, rule: rule)
            switch line {
            case .overLimit: guard used > limit else { continue }
            case .pastWarning: guard pastWarning.contains(path), used > target else { continue }
            }
            inputs.append(
                CleanupInputs(
                    level: level,
                    directory: CleanupDirectory(
                        path: path, used: used, size: size, effectiveLimit: limit, target: target, tally: tally),
                    candidates: files(below: directory, live: &live)))
        }
        return inputs
    }

    /// `ratio` × the limit, and below the rule's way back to `quota_ok` (under its warning line
    /// less the hysteresis band), so that a cleaned directory is reported `quota_ok`.
    func target(_ limit: UInt64, _ ratio: Double, rule: String?) -> UInt64 {
        // Saturating: 100 % of a limit near 2^64 is 2^64 as a Double, past UInt64.
        let byRatio =
            ratio == CleanupSettings.defaultTargetRatio
            ? CleanupDirectory.defaultTarget(effectiveLimit: limit)
            : Saturating.uint64((Double(limit) * ratio).rounded(.down))
        guard let rule, let thresholds = thresholds(of: rule) else { return byRatio }
        return min(byRatio, Self.okTarget(limit, thresholds))
    }

    /// The largest size a `warning` (or `breach`) directory may have to go back to `ok`:
    /// strictly under (warning ratio − hysteresis) × limit.
    static func okTarget(_ limit: UInt64, _ thresholds: QuotaThresholds) -> UInt64 {
        let line = Double(limit) * (thresholds.warningRatio - max(thresholds.hysteresis, 0))
        guard line > 0 else { return 0 }
        let ceiling = line.rounded(.up)
        return ceiling >= Double(UInt64.max) ? .max : UInt64(ceiling) - 1
    }

    private func thresholds(of rule: String) -> QuotaThresholds? {
        guard let config = monitor?.policyConfig else { return nil }
        return config.quotas.first { $0.glob.text == rule }?.thresholds
            ?? config.budgets.first { $0.glob.text == rule }?.thresholds
    }

    mutating func files(
        below directory: DirectoryID, live: inout LiveTree<some LiveFileSystem>
    )
        -> [CleanupCandidate]
    {
        if let cached = filesCache[directory] { return cached }
        // The audit log names the directory being cleaned as the rule.
        let tree = live.tree
        let opens = opens
        let files = live.cleanupFiles(
            below: directory, rule: EscapedName.string(live.tree.relativePath(of: directory)),
            lastOpen: { opens.lastOpen(of: $0, in: tree) })
        filesCache[directory] = files
        return files
    }

    // MARK: Leftovers

    /// A `leftover` trigger names its file, taken only while it is still a reported leftover
    /// (a write since its report ended that). Any other trigger takes, inside `scope`, what the
    /// leftover rules ask for now: the idle files the engine has reported (each judged idle
    /// from its last activity and not open for writing, never from its mtime alone), the
    /// `older-than` entries idle past their age, all but the newest of a keep-newest rule's
    /// entries. Rules marked `protect: true` find nothing to remove, and directory-over rules
    /// (the WebKit cache) are the trim cleaner's.
    private mutating func leftovers(
        for trigger: CleanupTrigger, within scope: DirectoryID, live: inout LiveTree<some LiveFileSystem>
    ) -> [CleanupCandidate] {
        let rules = settings.leftoverRules(config: monitor?.policyConfig, tree: live.tree)
        let reported = monitor?.reportedLeftovers ?? []
        if case .leftover(let path, let name) = trigger {
            guard let rule = rules.first(where: { $0.name == name }), !rule.protect,
                reported.contains(where: { $0.path == path && $0.rule == name })
            else { return [] }
            return live.cleanupEntry(at: path, rule: name).map { [$0] } ?? []
        }
        let scopePath = live.tree.relativePath(of: scope)
        var found: [CleanupCandidate] = []
        for rule in rules where !rule.protect {
            switch rule.kind {
            case .idleFile:
                for leftover in reported where leftover.rule == rule.name && Self.isInside(leftover.path, scopePath) {
                    if let candidate = live.cleanupEntry(at: leftover.path, rule: rule.name) { found.append(candidate) }
                }
            case .olderThan(let age):
                for glob in rule.paths {
                    let entries = live.cleanupEntries(matching: glob, within: scope, rule: rule.name, directories: true)
                    found += entries.filter {
                        LeftoverDecisions.isOlder(
                            modifiedNanoseconds: $0.modifiedNanoseconds, changedNanoseconds: $0.changedNanoseconds,
                            than: age, nowNanoseconds: wallNow)
                    }
                }
            case .keepNewest(let keep):
                for glob in rule.paths {
                    let entries = live.cleanupEntries(matching: glob, within: scope, rule: rule.name, directories: true)
                    var byParent: [[UInt8]: [CleanupCandidate]] = [:]
                    for entry in entries {
                        let parent = entry.path.lastIndex(of: UInt8(ascii: "/")).map { Array(entry.path[..<$0]) } ?? []
                        byParent[parent, default: []].append(entry)
                    }
                    for group in byParent.values {
                        let beyond = LeftoverDecisions.beyondNewest(
                            group.map {
                                LeftoverDecisions.Entry(name: $0.path, modifiedNanoseconds: $0.modifiedNanoseconds)
                            }, keep: keep)
                        let names = Set(beyond.map(\.name))
                        found += group.filter { names.contains($0.path) }
                    }
                }
            case .directoryOver:
                continue
            }
        }
        var seen: Set<[UInt8]> = []
        return found.filter { seen.insert($0.path).inserted }
    }

    /// Whether `path` is `scope` or below it (ROOT's path is empty: everything is inside).
    static func isInside(_ path: [UInt8], _ scope: [UInt8]) -> Bool {
        scope.isEmpty || path == scope || path.starts(with: scope + [UInt8(ascii: "/")])
    }
}

extension CleanupSettings {
    /// The leftover rules in force for this tree: the ios-sandbox profile's when ROOT looks
    /// like an app container (or the config says so), with the config's own.
    func leftoverRules(config: PolicyConfig?, tree: TallyTree) -> [LeftoverRule] {
        guard let config else { return [] }
        var names: Set<String> = []
        for child in tree.subdirectories(of: tree.root) {
            names.insert(String(decoding: tree.name(of: child), as: UTF8.self))
        }
        let applies = IOSSandboxProfile.applies(choice: config.profile, rootDirectories: names)
        return config.effectiveLeftoverRules(profileApplies: applies)
    }
}
