import QuotaWatchCore

/// The resync after an overflow: a fresh crawl of ROOT, the events queued before it dropped
/// (they describe a past the crawl sees anyway), the mount table taken as it is, and the new
/// tree placed afresh by the policy layer. Runs on the engine thread.
struct EngineResync {
    let mailbox: Mailbox
    let mounts: MountFollower?
    let policy: EnginePolicy
    let publisher: EnginePublisher
    let clock: MonotonicEngineClock

    /// True when the tree was crawled afresh; false when ROOT could not be crawled (tried
    /// again later).
    func run(_ step: inout KernelStep) -> Bool {
        let start = clock.now
        // Events queued before the crawl describe a past the crawl will see anyway.
        let stale = mailbox.take(until: clock.instant(of: start))
        for message in stale { requeueNonEvents(message) }
        mounts?.resetBaseline()
        guard let listed = step.resyncTree() else { return false }
        publisher.emit(.resynced(directories: listed, seconds: clock.seconds(since: start)))
        // A new tree with new ids: placed afresh, and every directory past a line reported again.
        policy.rebuildAfterResync(&step.live)
        publisher.reportDegradation(of: step.live)
        step.schedule.allSyncsEnded()
        return true
    }

    private func requeueNonEvents(_ message: EngineMessage) {
        switch message {
        case .events, .filesChanged: return
        default: break
        }
        mailbox.post(message)
    }
}
