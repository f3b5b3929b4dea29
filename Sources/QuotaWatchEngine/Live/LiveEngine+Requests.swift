import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// Control requests, `status --sync` and the resync after an overflow: the engine's answers,
/// each on the engine thread with every change before the request applied.
extension LiveEngine {
    func answer(_ request: ControlRequest, _ reply: ControlReply, _ step: inout KernelStep) {
        requestsAnswered += 1
        answer(request, reply, &step.live, &step.schedule)
    }

    private func answer(
        _ request: ControlRequest, _ reply: ControlReply, _ live: inout LiveTree<KernelFileSystem>,
        _ schedule: inout EngineSchedule
    ) {
        let query: StatusQuery
        switch request.command {
        case .status(let status): query = status
        case .clean, .cleanList, .cleanDelete:
            let served = ParticipantRequest(
                command: request.command, reply: reply, monitor: monitor, counters: view(of: live).counters)
            for participant in options.participants where participant.answer(served, &live) { return }
            return reply.fail("\(request.command.name) is not served: this daemon runs no cleaners")
        case .events, .registerCleaner:
            return reply.fail("\(request.command.name) is served by the control server, not the engine")
        }
        guard request.sync else {
            live.flush()
            respond(reply, query, &live)
            return
        }
        if live.tree.watch(of: live.tree.root) < 0 {
            // No watch on the root means no marker event: polling keeps the tallies instead.
            followMounts(&live)
            live.settleForSync()
            respond(reply, query, &live)
            return
        }
        replies.startSync(reply, query, &live, &schedule, now: clock.now, rootDisplay: options.rootDisplay)
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

    /// Hands the selected rows and the counters to the connection's thread, which encodes
    /// them: the engine's cost is the rows selected, never the whole tree.
    func respond(_ reply: ControlReply, _ query: StatusQuery, _ live: inout LiveTree<KernelFileSystem>) {
        // A reply that shows a subtree degraded comes with its event and log line.
        reportDegradation(of: live)
        guard case .tree(let selection) = query else {
            // Every change applied so far is evaluated first, so the rows agree with the tree.
            policyTurn(&live)
            guard let monitor else {
                reply.fail("the policy layer has not started yet; try again")
                return
            }
            reply.send(monitor.snapshot(root: options.rootDisplay, tree: live.tree, now: clock.now))
            return
        }
        StatusReplies.sendTree(
            selection, of: live.tree, to: reply, rootDisplay: options.rootDisplay, counters: view(of: live).counters)
    }

    func resync(_ step: inout KernelStep) {
        let start = clock.now
        // Events queued before the crawl describe a past the crawl will see anyway.
        let stale = mailbox.take(until: clock.instant(of: start))
        for message in stale { requeueNonEvents(message) }
        mounts?.resetBaseline()
        guard let listed = step.resyncTree() else { return }
        rebuildAfterResync(&step.live, listed: listed, start: start)
        step.schedule.allSyncsEnded()
    }

    /// A new tree with new ids after a resync: placed afresh, every directory past a line
    /// reported again, and every waiting sync answered.
    private func rebuildAfterResync(_ live: inout LiveTree<KernelFileSystem>, listed: Int, start: UInt64) {
        emit(.resynced(directories: listed, seconds: seconds(since: start)))
        // A new tree with new ids: placed afresh, and every directory past a line reported again.
        var events = monitor?.rebuild(&live.tree, keepingQuotaStates: false, now: clock.now, time: .now()) ?? []
        events += evaluated(&live, changed: [])
        for event in events { publish(event) }
        reportDegradation(of: live)
        // The fresh crawl began after every waiting sync was asked for, so it answers them all.
        for (marker, pending) in replies.takeAll() {
            try? live.fileSystem.root.unlink(marker)
            live.settleForSync()
            respond(pending.reply, pending.query, &live)
        }
    }

    func requeueNonEvents(_ message: EngineMessage) {
        switch message {
        case .events, .filesChanged: return
        default: break
        }
        mailbox.post(message)
    }
}
