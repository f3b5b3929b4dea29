import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The engine loop's body over any file system and clock: what the loop does with a batch of
/// changes, and what one turn does as time passes. ``LiveEngine`` drives it with the kernel
/// and the monotonic clock; tests drive the very same step with a fake file system and a
/// manual clock (watchman's `stepIoThread`, driven by its `InMemoryViewTest`), so no harness
/// re-implements the turn and the two cannot drift.
///
/// The step owns the order of the turn and what is due; what the engine adds at each point
/// (answering syncs, emitting events, the participants' turns) comes from an
/// ``EngineStepActions``.
package struct EngineStep<FileSystem: LiveFileSystem, Clock: EngineClock> {
    package var live: LiveTree<FileSystem>
    package var schedule: EngineSchedule
    package var clock: Clock
    /// The engine thread's CPU time, which the verification sweep keeps to its budget.
    package var cpuTime: @Sendable () -> Duration = { ThreadCPUTime.current() }
    /// Nanoseconds since the epoch, what the verification sweep compares change times with.
    package var wallNow: @Sendable () -> Int64 = { WallTime.now().millisecondsSinceEpoch &* 1_000_000 }

    package init(live: LiveTree<FileSystem>, schedule: EngineSchedule, clock: Clock) {
        self.live = live
        self.schedule = schedule
        self.clock = clock
    }

    package var now: UInt64 { clock.now }

    /// What the schedule needs to know of the tree; `policyDeadline` is the participants'
    /// earliest wish, which only sets when the loop wakes.
    package func conditions(policyDeadline: UInt64? = nil) -> LoopConditions {
        LoopConditions(
            hasPendingWork: live.hasPendingWork, timerDeadline: live.nextDeadline,
            hasUnwatchedDirectories: live.hasUnwatchedDirectories, needsResync: live.needsResync,
            policyDeadline: policyDeadline,
            // While the tree is unsettled the flush, the move timers or the resync's backoff
            // wake the loop first.
            verifyDeadline: live.isSettledForVerification && !live.needsResync ? live.verification.nextDue : nil)
    }

    /// When the loop must wake at the latest.
    package func wakeDeadline(policyDeadline: UInt64?) -> UInt64? {
        schedule.wakeDeadline(conditions(policyDeadline: policyDeadline))
    }

    /// A batch from the backend, applied to the tree. True when it is the overflow that made
    /// the tree untrustworthy (the resync's backoff starts counting from it).
    package mutating func apply(_ changes: [FileSystemChange]) -> Bool {
        let wasOverflowed = live.needsResync
        live.apply(changes, now: clock.now)
        guard live.needsResync && !wasOverflowed else { return false }
        schedule.overflowed(at: clock.now)
        return true
    }

    /// The tree's own resync: a fresh crawl, and the backoff's clock restarted. The number of
    /// directories listed, or nil when the root could not be crawled (tried again later).
    package mutating func resyncTree() -> Int? {
        guard let listed = live.resync() else { return nil }
        live.checkConsistency(after: "a resync")
        schedule.resynced(at: clock.now)
        return listed
    }

    /// One turn after the messages: the tree's timers, the syncs, a resync once due, a reload,
    /// the settled flush, the poll of unwatched subtrees, a slice of the verification sweep
    /// once due and the tree is settled, then the participants. Each is asked
    /// in turn, since each changes what the next one finds: an expired sync no longer forces a
    /// resync, and a resync changes what is pending.
    package mutating func turn<Actions: EngineStepActions>(_ actions: inout Actions)
    where Actions.FileSystem == FileSystem, Actions.Clock == Clock {
        let now = clock.now
        let sweepIsDue = live.verification.isDue(now)
        live.runTimers(now: now)
        live.checkConsistency(after: "timers")
        actions.completeSyncs(&self)
        actions.expireSyncs(schedule.due(conditions(), now: now).expiredSyncs, &self)
        if schedule.due(conditions(), now: now).resync { actions.resync(&self) }
        let due = schedule.due(conditions(), now: now)
        if due.reload {
            schedule.reloaded()
            actions.reload(&self)
        }
        if due.flush {
            live.flush()
            live.checkConsistency(after: "a flush")
            schedule.flushed(at: now)
        }
        if due.poll {
            live.pollDegraded()
            schedule.polled(at: now)
            actions.polled(&self)
        }
        // Only the slice is charged to the sweep's budget, not the turn around it: a turn may
        // hold a flush or the policy's work of a second or more, which charged to one slice
        // held the sweep back for minutes. The loop's own wake-up is left uncharged; slices
        // of about ``VerificationSweep/Settings/sliceCPU`` keep it to one a second at 1 %.
        var sliceCPU: Duration?
        if sweepIsDue && live.isSettledForVerification && !live.needsResync {
            let sliceStart = cpuTime()
            let corrections = live.verifySlice(wallNow: wallNow())
            if !corrections.isEmpty { actions.verified(corrections, &self) }
            sliceCPU = cpuTime() - sliceStart
        }
        actions.endTurn(&self, now: now)
        if let sliceCPU { live.verification.sliceEnded(cpu: sliceCPU, now: now) }
    }
}

/// What the engine adds at the fixed points of an ``EngineStep``'s turn. Every method has a
/// default that does only the tree's part, which is what a test of the tree wants.
package protocol EngineStepActions {
    associatedtype FileSystem: LiveFileSystem
    associatedtype Clock: EngineClock
    typealias Step = EngineStep<FileSystem, Clock>

    /// After the timers: the syncs whose marker has come back are answered.
    mutating func completeSyncs(_ step: inout Step)
    /// Syncs whose marker did not come back in time.
    mutating func expireSyncs(_ markers: [[UInt8]], _ step: inout Step)
    /// A resync is due (its backoff passed, or a sync waits).
    mutating func resync(_ step: inout Step)
    /// The SIGHUPs have settled: the config is read again.
    mutating func reload(_ step: inout Step)
    /// The unwatched subtrees were listed again.
    mutating func polled(_ step: inout Step)
    /// A slice of the verification sweep corrected what no event had reported.
    mutating func verified(_ corrections: [VerificationSweep.Correction], _ step: inout Step)
    /// The end of the turn, the tree settled as far as it will this turn: the participants.
    mutating func endTurn(_ step: inout Step, now: UInt64)
}

extension EngineStepActions {
    package mutating func completeSyncs(_ step: inout Step) {}
    package mutating func expireSyncs(_ markers: [[UInt8]], _ step: inout Step) {
        for marker in markers { step.schedule.syncEnded(marker) }
    }
    package mutating func resync(_ step: inout Step) { _ = step.resyncTree() }
    package mutating func reload(_ step: inout Step) {}
    package mutating func polled(_ step: inout Step) {}
    package mutating func verified(_ corrections: [VerificationSweep.Correction], _ step: inout Step) {}
    package mutating func endTurn(_ step: inout Step, now: UInt64) {}
}

/// The tree's part of a turn and nothing else.
package struct TreeOnlyActions<FileSystem: LiveFileSystem, Clock: EngineClock>: EngineStepActions {
    package init() {}
}
