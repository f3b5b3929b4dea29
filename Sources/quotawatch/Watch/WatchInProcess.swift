import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchView

/// `watch ROOT` with no daemon serving ROOT: the engine runs here, on a thread of its own,
/// with everything `run` would do (socket, policy, cleaners, hooks); the view follows it
/// through a ``WatchObserver``.
enum WatchInProcess {
    static func session(
        _ options: EngineOptions, screen: Bool, phone: PhoneStorageOptions.Measured? = nil
    ) -> WatchSession {
        var options = options
        let feed = WatchFeed()
        options.observers.append(
            WatchObserver(feed: feed, root: options.rootDisplay, wantsFrames: screen, phone: phone))
        // The screen owns stdout; `--events jsonl` writes there only in pipe mode.
        if screen { options.emitsEvents = false }
        // And the terminal: the engine's log lines go to the view's event log from its first
        // line on (``WatchScreenLoop`` gives standard error back when the screen closes).
        if screen { Log.redirect { level, text in feed.log(text, warns: level <= .warning) } }

        // The termination signals are already blocked (``WatchCommand``), as `run` blocks them.
        ResourceLimits.raiseOpenFileLimit()
        MemoryTuning.returnLargeBlocksToKernel()
        MemoryTuning.keepOneArena()

        let engine = LiveEngine(options: options)
        let root = options.rootDisplay
        let thread = JoinableThread(name: "engine") {
            // Called once per directory listed; the screen redraws at most ten times a second.
            var lastProgress = ContinuousClock.now - .seconds(1)
            let exit = engine.run { progress in
                guard ContinuousClock.now - lastProgress >= .milliseconds(50) else { return }
                lastProgress = ContinuousClock.now
                var frame = WatchFrame(root: root, directory: feed.directory)
                frame.crawl = (progress.directories, progress.files)
                frame.rootAllocated = progress.allocatedBytes
                feed.publish(frame)
            }
            switch exit {
            case .stopped: feed.finish(.success)
            case .signal(let signal):
                feed.finish(.success, message: Diagnostic.note("stopped by \(TerminationSignals.name(signal))"))
            case .failure(let failure): feed.finish(.failure, message: Diagnostic.error(failure.description))
            }
        }
        return WatchSession(
            feed: feed, socketPath: options.socketPath, attachedTo: nil,
            deletes: options.participants.contains { ($0 as? CleanupParticipant)?.deletes == true },
            stop: {
                engine.stop()
                thread.join()
            })
    }
}
