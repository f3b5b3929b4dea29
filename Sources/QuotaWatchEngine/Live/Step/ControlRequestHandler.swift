import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The control requests that reach the engine thread, answered there with every change before
/// the request applied: `status` (a tree query or the quotas) at once or after its sync marker
/// came back, the cleaning requests handed to the participants that serve them, and the syncs
/// still waiting answered after a resync (whose fresh crawl began after they were asked).
/// Owned by the engine thread.
final class ControlRequestHandler {
    /// `status` replies and the syncs waiting for their marker.
    private var replies = StatusReplies()
    private let rootDisplay: String
    private let participants: [any EngineParticipant]
    private let policy: EnginePolicy
    private let publisher: EnginePublisher
    private let resyncer: EngineResync
    private let mounts: MountFollower?
    private let clock: MonotonicEngineClock

    init(
        options: EngineOptions, policy: EnginePolicy, publisher: EnginePublisher, resync: EngineResync,
        mounts: MountFollower?, clock: MonotonicEngineClock
    ) {
        rootDisplay = options.rootDisplay
        participants = options.participants
        self.policy = policy
        self.publisher = publisher
        resyncer = resync
        self.mounts = mounts
        self.clock = clock
    }

    /// Every marker's name starts with it, so the tree knows a marker from a file.
    var markerPrefix: [UInt8] { replies.markerPrefix }

    func answer(_ request: ControlRequest, _ reply: ControlReply, _ step: inout KernelStep) {
        publisher.reporter.requestsAnswered += 1
        let query: StatusQuery
        switch request.command {
        case .status(let status): query = status
        case .clean, .cleanList, .cleanDelete:
            let served = ParticipantRequest(
                command: request.command, reply: reply, monitor: policy.monitor,
                counters: publisher.reporter.report(of: step.live))
            for participant in participants where participant.answer(served, &step.live) { return }
            return reply.fail("\(request.command.name) is not served: this daemon runs no cleaners")
        case .events, .registerCleaner:
            return reply.fail("\(request.command.name) is served by the control server, not the engine")
        }
        guard request.sync else {
            step.live.flush()
            respond(reply, query, &step.live)
            return
        }
        if step.live.tree.watch(of: step.live.tree.root) < 0 {
            // No watch on the root means no marker event: polling keeps the tallies instead.
            followMounts(&step.live)
            step.live.settleForSync()
            respond(reply, query, &step.live)
            return
        }
        replies.startSync(reply, query, &step.live, &step.schedule, now: clock.now, rootDisplay: rootDisplay)
    }

    /// Every sync whose marker has come back through the queue has seen all earlier changes.
    func completeSyncs(_ step: inout KernelStep) {
        guard !step.live.markersSeen.isEmpty else { return }
        for marker in step.live.markersSeen {
            step.live.acknowledgeMarker(marker)
            guard let pending = replies.take(marker) else { continue }
            step.schedule.syncEnded(marker)
            try? step.live.fileSystem.root.unlink(marker)
            if step.live.needsResync { resync(&step) }
            // A mount made before the request may not have reached the mailbox yet.
            followMounts(&step.live)
            step.live.settleForSync()
            respond(pending.reply, pending.query, &step.live)
        }
    }

    func expireSyncs(_ markers: [[UInt8]], _ step: inout KernelStep) {
        for marker in markers {
            step.schedule.syncEnded(marker)
            guard let pending = replies.take(marker) else { continue }
            try? step.live.fileSystem.root.unlink(marker)
            pending.reply.fail(
                "the sync marker did not come back through the inotify queue within "
                    + "\(step.schedule.syncTimeout.components.seconds) s; try again, or use status without --sync")
        }
    }

    /// The resync; its fresh crawl began after every waiting sync was asked for, so it
    /// answers them all.
    func resync(_ step: inout KernelStep) {
        guard resyncer.run(&step) else { return }
        for (marker, pending) in replies.takeAll() {
            try? step.live.fileSystem.root.unlink(marker)
            step.live.settleForSync()
            respond(pending.reply, pending.query, &step.live)
        }
    }

    /// ROOT is gone: every sync still waiting fails with `message`.
    func failWaiting(_ message: String) {
        for pending in replies.takeAll().values { pending.reply.fail(message) }
    }

    /// Hands the selected rows and the counters to the connection's thread, which encodes
    /// them: the engine's cost is the rows selected, never the whole tree.
    private func respond(_ reply: ControlReply, _ query: StatusQuery, _ live: inout LiveTree<KernelFileSystem>) {
        // A reply that shows a subtree degraded comes with its event and log line.
        publisher.reportDegradation(of: live)
        guard case .tree(let selection) = query else {
            // Every change applied so far is evaluated first, so the rows agree with the tree.
            policy.turn(&live)
            guard let monitor = policy.monitor else {
                reply.fail("the policy layer has not started yet; try again")
                return
            }
            reply.send(monitor.snapshot(root: rootDisplay, tree: live.tree, now: clock.now))
            return
        }
        StatusReplies.sendTree(
            selection, of: live.tree, to: reply, rootDisplay: rootDisplay, counters: publisher.reporter.report(of: live)
        )
    }

    private func followMounts(_ live: inout LiveTree<KernelFileSystem>) { MountFollower.follow(mounts, in: &live) }
}
