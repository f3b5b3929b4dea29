import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The engine's side of cleaning: it turns triggers into runner submissions. Owned by the
/// engine thread.
///
/// A trigger is noted where the engine sees it (a `quota_breach`, `level` or `leftover`
/// policy event, a `clean` request, the periodic deadline, a new app version at start) and
/// planned in the same turn of the loop: the candidates of each configured cleaner are built
/// from the live tree then (``LiveTree/cleanupFiles(below:rule:lastOpen:)``), so a breach costs
/// one stat per name in that directory, and handed to the ``CleanupRunner``, which runs off
/// this thread. Its summary comes back through the mailbox. What the cleaners delete reaches
/// the tree as ordinary inotify events: nothing is rescanned.
struct CleanupCoordinator: Sendable {
    /// What a trigger carries until its turn.
    enum Request: Sendable {
        case trigger(CleanupTrigger)
        /// A breach, with the limit in force and the size its rule counts.
        case breach(path: [UInt8], size: SizeKind, effectiveLimit: UInt64, rule: String)
        /// `clean` on the control socket.
        case manual(name: String, dryRun: Bool, reply: ControlReply)
    }

    let settings: CleanupSettings
    let runner: CleanupRunner
    let plans: CleanupPlans
    /// Every run reports only (no `run --clean`, or `--dry-run`).
    let dryRun: Bool
    private var waiting: [Request] = []
    /// `clean_delete` requests so far, naming each one's trigger.
    private var selections = 0
    /// The first turn comes at once: it watches opens for lru before any request is answered.
    private var hadFirstTurn = false
    /// When the last run of any kind was asked for or ended (engine clock): the periodic
    /// fallback counts from it.
    private var lastRun: UInt64
    /// The level the periodic deadline is computed for.
    private var level: DiskLevel = .normal
    /// Last opens, for `order: lru`.
    var opens: OpenLog
    /// The version to persist once the `app_version` run is done.
    var appVersion: (store: AppVersionStore, version: String)?
    /// Breached directories whose states wait for their run to end and be counted.
    var settling = CleanupSettling()

    /// Programs registered as cleaners over the control socket; nil when there is no socket.
    let registered: RegisteredCleaners?

    init(
        settings: CleanupSettings, runner: CleanupRunner, plans: CleanupPlans, dryRun: Bool, now: UInt64,
        registered: RegisteredCleaners? = nil
    ) {
        self.registered = registered
        self.settings = settings
        self.runner = runner
        self.plans = plans
        self.dryRun = dryRun
        opens = OpenLog(settings: settings)
        lastRun = now
    }

    /// The built-in cleaner a configured one runs; nil for the registered cleaners' place.
    static func cleaner(_ spec: CleanerSpec) -> (any Cleaner)? {
        switch spec {
        case .leftovers(let name): LeftoverCleaner(name: name)
        case .evict(let name, _, let order, _): EvictionCleaner(name: name, order: order)
        case .trim(let name, _, let limit): EvictionCleaner(name: name, order: .oldestModified, limit: limit)
        case .expire(let name, _, let age):
            ExpiryCleaner(name: name, age: age, nowNanoseconds: WallClock.nanosecondsSinceEpoch)
        case .command(let name, let argv, let timeout):
            CommandCleaner(
                name: name, arguments: argv, timeout: timeout,
                environment: ["PATH", "HOME", "LANG"].compactMap { key in
                    ProcessInfo.processInfo.environment[key].map { Array("\(key)=\($0)".utf8) }
                })
        case .registered: nil
        }
    }

    // MARK: Triggers

    /// A policy event that starts a run: a breach, a level change, a leftover.
    mutating func note(_ event: PolicyEvent) {
        switch event.detail {
        case .quota(.breach, let path, _, let size, _, let effectiveLimit, let rule, _):
            waiting.append(.breach(path: path, size: size, effectiveLimit: effectiveLimit, rule: rule))
        case .level(let from, let to, _, _, _):
            waiting.append(.trigger(.level(from: from, to: to)))
        case .leftover(let path, _, _, let rule):
            waiting.append(.trigger(.leftover(path: path, rule: rule)))
        default:
            break
        }
    }

    mutating func note(_ request: Request) { waiting.append(request) }

    /// A `clean_delete` selection, to be planned on the runner: staged under a trigger of its own and
    /// submitted at once, so it runs on the runner after (never during) any other run.
    mutating func submitSelection(_ selection: PlannedSelection, level: DiskLevel, dryRun: Bool, reply: ControlReply) {
        selections += 1
        let trigger = CleanupTrigger.manual("clean-\(selections)")
        var plan = CleanupPlan(level: level, jobs: settings.cleaners.map { _ in [] })
        plan.dryRun = dryRun
        plan.replies = [reply]
        plan.selection = selection
        plans.stage(trigger, plan)
        runner.submit(trigger)
    }

    /// When the next turn must come: at once while a trigger waits to be planned, else when
    /// the periodic run is due (engine clock).
    var nextDeadline: UInt64 {
        guard waiting.isEmpty && hadFirstTurn else { return 0 }
        return min(periodicDeadline, settling.nextDeadline ?? .max)
    }

    var periodicDeadline: UInt64 { lastRun + settings.periodic.period(at: level).nanoseconds }

    /// A run ended (or was just asked for): the periodic fallback starts counting again.
    mutating func ran(at now: UInt64) { lastRun = now }

    // MARK: Each turn

    /// The end of an engine turn, after the policy's pass: plans and submits the triggers
    /// noted this turn, holds the states of the breached directories a run now cleans, and
    /// lets go of those settled. Returns true when the policy must be evaluated again now
    /// (a released directory). Generic over the file system, so a test runs this very turn.
    mutating func endTurn<FileSystem: LiveFileSystem>(
        _ live: inout LiveTree<FileSystem>, _ monitor: inout PolicyMonitor?, now: UInt64
    ) -> Bool {
        turn(&live, monitor: monitor, now: now)
        let settled = settling.takeSettled(live.tree, now: now)
        guard monitor != nil else { return false }
        // Every directory a run was submitted for is held until it settles (CleanupSettling).
        for path in settling.paths {
            guard let directory = CleanupSettling.directory(path, in: live.tree),
                !monitor!.isHeldForCleanup(directory)
            else { continue }
            monitor!.holdForCleanup(directory)
        }
        guard !settled.isEmpty else { return false }
        for path in settled {
            guard let directory = CleanupSettling.directory(path, in: live.tree) else { continue }
            monitor!.releaseAfterCleanup(directory)
        }
        return true
    }

    /// A run ended: the periodic clock starts again, and the directories it served wait for
    /// its deletions to reach the tree.
    mutating func finished(_ summary: CleanupSummary, now: UInt64) {
        ran(at: now)
        settling.finished(summary, now: now)
    }

    /// Plans and submits every trigger noted since the last turn, and the periodic one when due.
    mutating func turn<FileSystem: LiveFileSystem>(
        _ live: inout LiveTree<FileSystem>, monitor: PolicyMonitor?, now: UInt64
    ) {
        hadFirstTurn = true
        opens.watch(&live, monitor: monitor)
        let currentLevel = monitor?.diskLevel ?? .normal
        if currentLevel != level { level = currentLevel }
        if now >= periodicDeadline { waiting.append(.trigger(.periodic(currentLevel))) }
        guard !waiting.isEmpty else { return }
        let requests = waiting
        waiting = []
        var planner = CleanupPlanner(
            settings: settings, monitor: monitor, level: currentLevel, now: now, opens: opens)
        planner.registrations = registered?.current ?? []
        var triggers: [CleanupTrigger] = []
        for request in requests {
            let trigger: CleanupTrigger
            var plan: CleanupPlan
            switch request {
            case .trigger(let given):
                trigger = given
                plan = planner.plan(for: given, live: &live)
            case .breach(let path, let size, let effectiveLimit, let rule):
                trigger = .breach(path: path)
                settling.started(path)
                plan = planner.plan(for: trigger, live: &live, breach: (size, effectiveLimit, rule))
            case .manual(let name, let dryRun, let reply):
                trigger = .manual(name)
                plan = planner.plan(for: trigger, live: &live)
                plan.dryRun = dryRun
                plan.replies = [reply]
            }
            plans.stage(trigger, plan)
            triggers.append(trigger)
        }
        // One submission for the turn: what one turn found (the start's leftovers, a level
        // change's breaches) is served by one run, not one run each.
        runner.submit(triggers)
        lastRun = now
    }
}
