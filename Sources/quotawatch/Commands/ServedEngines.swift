import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import Synchronization

/// The engines of a daemon serving several roots, each on its own thread; roots may be added
/// while it runs (a directory that came to match `roots:`). A root whose engine ends is no
/// longer served.
final class ServedEngines: Sendable {
    private struct State {
        var engines: [(root: [UInt8], engine: LiveEngine)] = []
        var threads: [JoinableThread] = []
        var exits: [EngineExit] = []
        var stopping = false
    }

    private let state = Mutex(State())
    private let allEnded: (@Sendable () -> Void)?
    /// Told each time a root ends (the `roots:` watcher matches again).
    let rootEnded = Mutex<(@Sendable () -> Void)?>(nil)

    /// - Parameter allEnded: called when the last root has ended; nil for a daemon that keeps
    ///   waiting for roots to come (a `roots:` glob), until a signal.
    init(allEnded: (@Sendable () -> Void)?) { self.allEnded = allEnded }

    /// The roots served now.
    var roots: [[UInt8]] { state.withLock { $0.engines.map(\.root) } }

    var exits: [EngineExit] { state.withLock { $0.exits } }

    /// Starts serving `root` with `options`; nothing once stopping. Whatever the root's
    /// threads log names the root (``ThreadSubject``).
    func start(_ options: EngineOptions, root: [UInt8]) {
        let engine = LiveEngine(options: options)
        state.withLock { state in
            guard !state.stopping else { return }
            state.engines.append((root, engine))
            state.threads.append(
                JoinableThread(name: "root \(state.threads.count)") { [self] in
                    let exit = ThreadSubject.with(options.rootDisplay) { engine.run(progress: nil) }
                    ended(engine, root: root, exit)
                })
        }
    }

    private func ended(_ engine: LiveEngine, root: [UInt8], _ exit: EngineExit) {
        let left = state.withLock { state in
            state.engines.removeAll { $0.engine === engine }
            state.exits.append(exit)
            // With no root left the daemon ends: no root matched later starts on its way out.
            if state.engines.isEmpty && allEnded != nil { state.stopping = true }
            return state.engines.count
        }
        if case .failure(let failure) = exit {
            Log.error("\(EscapedName.string(root)): \(failure.description) (\(left) other root(s) still watched)")
        }
        rootEnded.withLock { $0 }?()
        if left == 0 { allEnded?() }
    }

    func shutdown(signal: Int32) {
        for engine in state.withLock({ state in
            state.stopping = true
            return state.engines.map(\.engine)
        }) {
            engine.shutdown(signal: signal)
        }
    }

    func reload() { for engine in state.withLock({ $0.engines.map(\.engine) }) { engine.reload() } }

    /// Waits for every engine, those started while waiting included.
    func joinAll() {
        var joined = 0
        while let next = state.withLock({ joined < $0.threads.count ? $0.threads[joined] : nil }) {
            next.join()
            joined += 1
        }
    }
}
