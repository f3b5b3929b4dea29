import Foundation
import QuotaWatchCore
import QuotaWatchSystem

public struct EngineOptions: Sendable {
    public var root: [UInt8]
    /// The root as shown in reports: absolute, escaped.
    public var rootDisplay: String
    public var socketPath: [UInt8]
    public var crawl = CrawlOptions()
    /// Changes to one file are stat'ed at most once per this period.
    public var settle: Duration = .milliseconds(20)
    /// Subtrees without a watch are re-listed this often.
    public var pollInterval: Duration = .seconds(2)
    public var emitsEvents = false
    public var traces = false

    public init(root: [UInt8], rootDisplay: String, socketPath: [UInt8]) {
        self.root = root
        self.rootDisplay = rootDisplay
        self.socketPath = socketPath
    }
}

/// Why `quotawatch run` stopped.
public enum EngineExit: Sendable, Equatable {
    case signal(Int32)
    case failure(String)
}

/// `quotawatch run`: crawls once, then keeps the tree exact from inotify events, answering
/// status requests on the control socket, until a termination signal.
///
/// Threads: one drains the inotify queue, one waits for signals, the control server answers
/// connections, one writes event lines; this one, the engine thread, is the only owner of
/// the tree and never waits on any of them.
public final class LiveEngine {
    private let options: EngineOptions
    private let mailbox = Mailbox()
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var events: LineWriter?
    private var pendingSyncs: [[UInt8]: (reply: ControlReply, deadline: ContinuousClock.Instant)] = [:]
    /// A marker that has not come back by then never will (its event was lost with an
    /// overflow that is still backing off, say): the request gets an error, not a hang.
    private let syncTimeout: Duration = .seconds(30)
    private var markerCounter = 0
    private let markerPrefix: [UInt8]
    private var reportedDegraded: [String] = []
    private var resyncNotBefore: ContinuousClock.Instant
    private var resyncBackoff: Duration = .zero
    private var lastResync: ContinuousClock.Instant?

    public init(options: EngineOptions) {
        self.options = options
        started = clock.now
        resyncNotBefore = started
        markerPrefix = Array(".quotawatch-sync.\(ProcessIdentity.processID).".utf8)
        if options.emitsEvents { events = LineWriter(descriptor: .standardOutput) }
    }

    /// Runs until a signal or a fatal condition. `progress` sees the first crawl.
    public func run(progress: ((CrawlProgress) -> Void)?) -> EngineExit {
        let opened: (descriptor: FileDescriptor, status: FileStatus)
        do {
            opened = try TreeScanner().openRoot(options.root)
        } catch {
            return .failure(error.description)
        }
        let root = opened.descriptor
        defer { root.close() }

        let server: ControlServer
        do {
            let mailbox = self.mailbox
            server = try ControlServer(socketPath: options.socketPath) { request, reply in
                mailbox.post(.request(request, reply))
            }
        } catch {
            return .failure("\(error)")
        }
        server.start()
        defer { server.stop() }

        let inotify: InotifyDescriptor
        let reader: InotifyReader
        do {
            inotify = try InotifyDescriptor()
            reader = try InotifyReader(inotify: inotify, mailbox: mailbox)
        } catch {
            return .failure(
                "cannot start inotify: \(error). Check fs.inotify.max_user_instances (now \(InotifyLimits.current().maxUserInstances))."
            )
        }
        reader.start()
        defer { reader.stop() }
        startSignalThread()

        let fileSystem = KernelFileSystem(root: root, inotify: inotify, options: options.crawl)
        let first: (TallyTree, CrawlReport)
        do {
            first = try fileSystem.crawlInitial(progress: progress)
        } catch {
            return .failure(error.description)
        }
        var live = LiveTree(tree: first.0, crawl: first.1, fileSystem: fileSystem, markerPrefix: markerPrefix)
        let rootName = Array(options.root.split(separator: UInt8(ascii: "/")).last ?? [])
        if let watch = fileSystem.watchRootParent(rootName: rootName, rootStatus: opened.status) {
            live.rootParent = (watch, rootName)
        }
        let total = live.tree.tally(of: live.tree.root)
        emit(
            .ready(
                directories: live.tree.directoryCount, files: live.tree.fileCount, allocated: total.allocated,
                seconds: seconds(since: started)))
        reportDegradation(of: live)
        let exit = loop(&live)
        events?.drain()
        return exit
    }

    // MARK: The loop

    private func loop(_ live: inout LiveTree<KernelFileSystem>) -> EngineExit {
        var lastFlush = clock.now
        var nextPoll = clock.now.advanced(by: options.pollInterval)
        while true {
            var deadline: ContinuousClock.Instant?
            func consider(_ instant: ContinuousClock.Instant?) {
                guard let instant else { return }
                deadline = deadline.map { min($0, instant) } ?? instant
            }
            if live.hasPendingWork { consider(lastFlush.advanced(by: options.settle)) }
            if let due = live.nextDeadline { consider(instant(fromNanoseconds: due)) }
            if live.hasUnwatchedDirectories { consider(nextPoll) }
            if live.needsResync { consider(resyncNotBefore) }
            consider(pendingSyncs.values.map(\.deadline).min())

            for message in mailbox.take(until: deadline) {
                switch message {
                case .events(let batch):
                    if options.traces { trace(batch, live.tree, live) }
                    let wasOverflowed = live.needsResync
                    live.apply(batch, now: nanoseconds(clock.now))
                    if live.needsResync && !wasOverflowed { noteOverflow() }
                case .request(let request, let reply):
                    answer(request, reply, &live)
                case .shutdown(let signal):
                    return .signal(signal)
                case .readerFailed(let error):
                    return .failure("reading inotify events failed: \(error)")
                }
            }
            let now = clock.now
            live.runTimers(now: nanoseconds(now))
            completeSyncs(&live)
            expireSyncs(now: now, &live)
            // A sync waiting on a marker lost in the overflow is answered by the resync itself.
            if live.needsResync && (now >= resyncNotBefore || !pendingSyncs.isEmpty) { resync(&live) }
            if live.hasPendingWork && now >= lastFlush.advanced(by: options.settle) {
                live.flush()
                lastFlush = now
            }
            if live.hasUnwatchedDirectories && now >= nextPoll {
                live.pollDegraded()
                nextPoll = now.advanced(by: options.pollInterval)
                reportDegradation(of: live)
            }
            if live.rootIsGone {
                let message =
                    "the root \(options.rootDisplay) was deleted or moved away; nothing is left to watch. "
                    + "Recreate it and start 'quotawatch run' again."
                emit(.rootGone(message: message))
                for pending in pendingSyncs.values { pending.reply.send(ControlProtocol.errorDocument(message)) }
                return .failure(message)
            }
        }
    }

    // MARK: Requests and syncs

    private func answer(_ request: ControlRequest, _ reply: ControlReply, _ live: inout LiveTree<KernelFileSystem>) {
        guard request.command == "status" else {
            reply.send(ControlProtocol.unknownCommandDocument(request.command))
            return
        }
        guard request.sync == true else {
            live.flush()
            reply.send(statusDocument(live))
            return
        }
        if live.tree.watch(of: live.tree.root) < 0 {
            // No watch on the root means no marker event: polling keeps the tallies instead.
            live.settleForSync()
            reply.send(statusDocument(live))
            return
        }
        markerCounter += 1
        let marker = markerPrefix + Array("\(markerCounter)".utf8)
        do {
            try live.fileSystem.root.createExclusiveFile(marker)
            pendingSyncs[marker] = (reply, clock.now.advanced(by: syncTimeout))
        } catch {
            if let status = try? live.fileSystem.root.status(), status.linkCount == 0 {
                // Deleted while we hold it open, which also holds back its IN_DELETE_SELF.
                live.noteRootGone()
                pendingSyncs[marker] = (reply, clock.now.advanced(by: syncTimeout))
                return
            }
            reply.send(
                ControlProtocol.errorDocument(
                    "cannot create the sync marker in \(options.rootDisplay): \(error); "
                        + "a sync needs write access to the root (status without --sync works without it)"))
        }
    }

    /// Every sync whose marker has come back through the queue has seen all earlier changes.
    private func completeSyncs(_ live: inout LiveTree<KernelFileSystem>) {
        guard !live.markersSeen.isEmpty else { return }
        for marker in live.markersSeen {
            live.acknowledgeMarker(marker)
            guard let pending = pendingSyncs.removeValue(forKey: marker) else { continue }
            try? live.fileSystem.root.unlink(marker)
            if live.needsResync { resync(&live) }
            live.settleForSync()
            pending.reply.send(statusDocument(live))
        }
    }

    private func expireSyncs(now: ContinuousClock.Instant, _ live: inout LiveTree<KernelFileSystem>) {
        for (marker, pending) in pendingSyncs where pending.deadline <= now {
            pendingSyncs.removeValue(forKey: marker)
            try? live.fileSystem.root.unlink(marker)
            pending.reply.send(
                ControlProtocol.errorDocument(
                    "the sync marker did not come back through the inotify queue within "
                        + "\(syncTimeout.components.seconds) s; try again, or use status without --sync"))
        }
    }

    private func statusDocument(_ live: LiveTree<KernelFileSystem>) -> [UInt8] {
        let tree = live.tree
        let engine = EngineReport(
            events: live.counters.events, rescannedDirectories: live.counters.rescannedDirectories,
            overflows: live.counters.overflows, watches: live.watchCount,
            degraded: live.degradedDirectories.map { EscapedName.string(tree.relativePath(of: $0)) })
        let report = StatusReport(tree: tree.report(root: options.rootDisplay), engine: engine)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(report) else { return ControlProtocol.errorDocument("encoding failed") }
        return Array(data)
    }

    // MARK: Overflow and degradation

    private func noteOverflow() {
        emit(.overflow)
        let now = clock.now
        // Back off when overflows follow each other, so a sustained storm cannot turn into a
        // recrawl storm: 0, 0.5 s, 1 s, 2 s … 30 s between resyncs; a quiet minute resets it.
        if let lastResync, now - lastResync < .seconds(60) {
            resyncBackoff = min(max(resyncBackoff * 2, .milliseconds(500)), .seconds(30))
        } else {
            resyncBackoff = .zero
        }
        resyncNotBefore = (lastResync ?? now).advanced(by: resyncBackoff)
    }

    private func resync(_ live: inout LiveTree<KernelFileSystem>) {
        let start = clock.now
        // Events queued before the crawl describe a past the crawl will see anyway.
        let stale = mailbox.take(until: start)
        for message in stale { requeueNonEvents(message) }
        guard let listed = live.resync() else { return }
        lastResync = clock.now
        emit(.resynced(directories: listed, seconds: seconds(since: start)))
        reportDegradation(of: live)
        // The fresh crawl began after every waiting sync was asked for, so it answers them all.
        for (marker, pending) in pendingSyncs {
            try? live.fileSystem.root.unlink(marker)
            live.settleForSync()
            pending.reply.send(statusDocument(live))
        }
        pendingSyncs.removeAll()
    }

    private func requeueNonEvents(_ message: EngineMessage) {
        if case .events = message { return }
        mailbox.post(message)
    }

    private func reportDegradation(of live: LiveTree<KernelFileSystem>) {
        let tree = live.tree
        let paths = live.degradedDirectories.map { EscapedName.string(tree.relativePath(of: $0)) }
        guard paths != reportedDegraded else { return }
        reportedDegraded = paths
        guard !paths.isEmpty else { return }
        let limits = InotifyLimits.current()
        let limit = limits.effectiveMaxUserWatches
        let needed = tree.directoryCount + 64
        var where_ = "fs.inotify.max_user_watches is \(limits.maxUserWatches)"
        if let namespaceLimit = limits.userNamespaceMaxWatches, namespaceLimit < limits.maxUserWatches {
            where_ += " and this user namespace allows \(namespaceLimit) (/proc/sys/user/max_inotify_watches)"
        }
        let message =
            "inotify watch limit reached: \(where_); \(options.rootDisplay) needs about \(needed) watches "
            + "(one per directory, shared with other programs of this user). Raise it with "
            + "'sysctl fs.inotify.max_user_watches=\(max(needed * 2, limits.maxUserWatches))' (persist it in "
            + "/etc/sysctl.d/) or raise /proc/sys/user/max_inotify_watches in the namespace. Until then "
            + "\(paths.count) subtree(s) are polled every \(options.pollInterval.components.seconds) s: "
            + paths.prefix(5).joined(separator: ", ")
        try? FileDescriptor.standardError.writeAll("quotawatch: warning: \(message)\n".utf8)
        emit(.degraded(paths: paths, watchesNeeded: needed, maxUserWatches: limit, message: message))
    }

    // MARK: Plumbing

    private func startSignalThread() {
        let mailbox = self.mailbox
        let thread = Thread {
            let signal = TerminationSignals.wait()
            mailbox.post(.shutdown(signal: signal))
        }
        thread.name = "signals"
        thread.start()
    }

    private func emit(_ event: EngineEvent) { events?.write(event.jsonLine) }

    private func trace(_ batch: [InotifyEvent], _ tree: TallyTree, _ live: LiveTree<KernelFileSystem>) {
        var text = ""
        for event in batch {
            let directory = live.directory(forWatch: event.watch)
            let path = directory.map { directory in
                directory == tree.root
                    ? options.rootDisplay
                    : options.rootDisplay + "/" + EscapedName.string(tree.relativePath(of: directory))
            }
            text +=
                "\(path ?? "?") \(InotifyEventNames.describe(event.mask.rawValue)) \(EscapedName.string(event.name))\n"
        }
        try? FileDescriptor.standardError.writeAll(text.utf8)
    }

    private func nanoseconds(_ instant: ContinuousClock.Instant) -> UInt64 {
        let elapsed = started.duration(to: instant)
        return UInt64(max(0, elapsed.components.seconds)) * 1_000_000_000
            + UInt64(max(0, elapsed.components.attoseconds / 1_000_000_000))
    }

    private func instant(fromNanoseconds value: UInt64) -> ContinuousClock.Instant {
        started.advanced(by: .nanoseconds(Int64(value)))
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: clock.now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
