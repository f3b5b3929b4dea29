import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Serves a directory from the moment it comes to match a `roots:` glob (a new home in
/// `/home/*`): an inotify watch, for names made or moved in, on every directory a pattern's
/// walk passes through above its last component (`/` and `/home` for `/home/*`). On such an
/// event the patterns are matched again and the directories not yet served are handed to
/// `found`. Nothing inside a root is watched here: the roots' own engines do that.
final class RootPatternWatcher: Sendable {
    private let inotify: InotifyDescriptor
    private let wakeup: WakeupPipe
    /// Asks for the patterns to be matched again: a root ended, and the directory it watched
    /// may be there again already (removed and made again before its engine had ended).
    private let rematch: WakeupEvent
    private let thread: ThreadHolder

    private final class ThreadHolder: Sendable {
        let thread: JoinableThread
        init(_ thread: JoinableThread) { self.thread = thread }
    }

    /// Starts watching when some pattern is a glob; nil otherwise, or when inotify cannot start
    /// (said in the log: the roots matched at start are still served).
    static func start(
        _ patterns: [RootPattern], found: @escaping @Sendable ([RootPatterns.Match]) -> Void
    )
        -> RootPatternWatcher?
    {
        guard patterns.contains(where: \.isGlob) else { return nil }
        do {
            return try RootPatternWatcher(patterns, found: found)
        } catch {
            Log.warning(
                "cannot watch for directories that come to match roots: (\(error)); those matched now are served, "
                    + "restart to serve new ones")
            return nil
        }
    }

    private init(_ patterns: [RootPattern], found: @escaping @Sendable ([RootPatterns.Match]) -> Void) throws(Errno) {
        let inotify = try InotifyDescriptor()
        let wakeup: WakeupPipe
        let rematch: WakeupEvent
        do throws(Errno) {
            wakeup = try WakeupPipe()
        } catch {
            inotify.close()
            throw error
        }
        do throws(Errno) {
            rematch = try WakeupEvent()
        } catch {
            inotify.close()
            wakeup.close()
            throw error
        }
        self.inotify = inotify
        self.wakeup = wakeup
        self.rematch = rematch
        thread = ThreadHolder(
            JoinableThread(name: "roots-watch") {
                Self.run(patterns, inotify: inotify, wakeup: wakeup, rematch: rematch, found: found)
            })
    }

    /// Matches the patterns again soon, on the watcher's thread.
    func matchAgain() { rematch.wake() }

    func stop() {
        wakeup.wake()
        thread.thread.join()
        inotify.close()
        wakeup.close()
        rematch.close()
    }

    private static func run(
        _ patterns: [RootPattern], inotify: InotifyDescriptor, wakeup: WakeupPipe, rematch: WakeupEvent,
        found: @Sendable ([RootPatterns.Match]) -> Void
    ) {
        var watched: [[UInt8]: Int32] = [:]
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            // Watch first, then match: a directory made between the two is found either way.
            for directory in patterns.flatMap({ RootPatterns.parents(of: $0.pattern) }) where watched[directory] == nil
            {
                guard
                    let opened = try? FileDescriptor.currentWorkingDirectory.openDirectory(
                        directory, followSymlinks: true)
                else { continue }
                if let watch = try? inotify.addWatch(opened, mask: [.create, .movedTo, .onlyDirectory]) {
                    watched[directory] = watch
                }
                opened.close()
            }
            found(RootPatterns.expand(patterns))
            guard
                let ready = try? Readiness.wait(
                    for: [inotify.descriptor, wakeup.readEnd, rematch.descriptor], timeoutMilliseconds: -1),
                !ready.contains(1)
            else { return }
            if ready.contains(2) { rematch.drain() }
            var gone: Set<Int32> = []
            while (try? inotify.readEvents(buffer: &buffer, { if $0.mask.contains(.ignored) { gone.insert($0.watch) } }))
                == true
            {}
            // A watched directory removed (or moved away) is watched again if it comes back.
            watched = watched.filter { !gone.contains($0.value) }
        }
    }
}
