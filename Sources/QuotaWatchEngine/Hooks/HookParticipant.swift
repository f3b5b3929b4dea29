import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization

/// The alert hooks as an ``EngineParticipant``: every published policy event goes to the
/// ``HookRunner``, a failed run comes back through the mailbox and is published as
/// `hook_failed` on the engine thread like every other event, and a good reload replaces the
/// hooks when they changed.
public final class HookParticipant: EngineParticipant {
    private struct State {
        var hooks: [HookSpec]
        var runner: HookRunner?
        var post: (@Sendable (any Sendable) -> Void)?
    }

    /// Touched on the engine thread only; the lock makes that a fact the compiler checks.
    private let state: Mutex<State>
    private let workingDirectory: [UInt8]
    /// ROOT, absolute and escaped as paths are: every hook's `root` and QUOTAWATCH_ROOT.
    private let root: String

    /// Hooks start in `workingDirectory` (ROOT: QUOTAWATCH_PATH is relative to it).
    public init(hooks: [HookSpec], workingDirectory: [UInt8], root: String) {
        state = Mutex(State(hooks: hooks))
        self.workingDirectory = workingDirectory
        self.root = root
    }

    public func start(_ start: ParticipantStart) -> EngineFailure? {
        state.withLock { state in
            state.post = start.post
            return startRunner(&state).map { .hooks($0) }
        }
    }

    /// Starts a runner for the hooks in force (none for an empty list); why it could not.
    private func startRunner(_ state: inout State) -> String? {
        guard !state.hooks.isEmpty, let post = state.post else {
            state.runner = nil
            return nil
        }
        do {
            state.runner = try HookRunner(hooks: state.hooks, workingDirectory: workingDirectory) { failure in
                post(failure)
            }
            return nil
        } catch {
            return "cannot start the hook runner: \(error)"
        }
    }

    public func published(_ event: PolicyEvent) {
        // A hook that fails is not sent its own failure: that would run it again, and fail again.
        var failedHook: String?
        if case .hookFailed(let hook, _, _, _, _) = event.detail { failedHook = hook }
        state.withLock { $0.runner }?.submit(event.hookEvent(root: root), except: failedHook)
    }

    public func received(_ message: any Sendable, _ output: ParticipantOutput) {
        guard let failure = message as? HookFailure else { return }
        Log.warning(failure.summary)
        var tail = String(decoding: failure.standardErrorTail, as: UTF8.self)
        if let startError = failure.startError { tail = startError + (tail.isEmpty ? "" : "\n" + tail) }
        output.publish(
            PolicyEvent(
                .hookFailed(
                    hook: failure.hookName, failedEvent: failure.eventKind, status: failure.exitStatus,
                    signal: failure.signal, standardErrorTail: tail), time: .now()))
    }

    /// The hooks of the new config replace the old ones when they differ.
    public func reloaded(_ config: PolicyConfig) {
        let new = config.hooks
        let failure: String? = state.withLock { state in
            guard new != state.hooks || (state.runner == nil) != new.isEmpty else { return nil }
            state.runner?.stop()
            state.runner = nil
            state.hooks = new
            return startRunner(&state)
        }
        if let failure { Log.write(.warning, Diagnostic.note("SIGHUP: \(failure); no hooks run now")) }
    }

    /// Kills runs under way and joins the hook threads.
    public func stop() {
        state.withLock { state in
            state.runner?.stop()
            state.runner = nil
        }
    }
}
