import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The alert hooks as an ``EngineParticipant``: every published policy event goes to the
/// ``HookRunner``, a failed run comes back through the mailbox and is published as
/// `hook_failed` on the engine thread like every other event, and a good reload replaces the
/// hooks when they changed.
package final class HookParticipant: EngineParticipant {
    private struct State {
        var hooks: [HookSpec]
        var runner: HookRunner?
        var post: (@Sendable (any Sendable) -> Void)?
        /// The kinds each hook of the last reload wants that it did not before (every kind it
        /// wants when it is new): the standing states it is told of once.
        var newlyWanted: [String: Set<String>] = [:]
    }

    /// Touched on the engine thread only, and checked to be.
    private let state: ThreadBound<State>
    private let workingDirectory: [UInt8]
    /// ROOT, absolute and escaped as paths are: every hook's `root` and QUOTAWATCH_ROOT.
    private let root: String

    /// Hooks start in `workingDirectory` (ROOT: QUOTAWATCH_PATH is relative to it).
    package init(hooks: [HookSpec], workingDirectory: [UInt8], root: String) {
        state = ThreadBound(State(hooks: hooks), name: "the hook participant's state")
        self.workingDirectory = workingDirectory
        self.root = root
    }

    package func start(_ start: ParticipantStart) -> EngineFailure? {
        state.withValue { state in
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

    package func published(_ event: PolicyEvent) {
        // A hook that fails is not sent its own failure: that would run it again, and fail again.
        var failedHook: String?
        if case .hookFailed(let hook, _, _, _, _) = event.detail { failedHook = hook }
        state.withValue { $0.runner }?.submit(event.hookEvent(root: root), except: failedHook)
    }

    package func received(_ message: any Sendable, _ output: ParticipantOutput) {
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

    /// The hooks of the new config replace the old ones when they differ. A hook is the same
    /// hook when its name is.
    package func reloaded(_ config: PolicyConfig) {
        let new = config.hooks
        let failure: String? = state.withValue { state in
            state.newlyWanted = [:]
            guard new != state.hooks || (state.runner == nil) != new.isEmpty else { return nil }
            state.newlyWanted = Self.newlyWanted(old: state.hooks, new: new)
            state.runner?.stop()
            state.runner = nil
            state.hooks = new
            return startRunner(&state)
        }
        if let failure { Log.plain(.warning, "SIGHUP: \(failure); no hooks run now") }
    }

    /// A hook added by the reload, or one that wants a kind it did not, hears of the states
    /// that stand once: otherwise a breach that stood before the reload would never reach it.
    package func standing(_ events: [PolicyEvent]) {
        let (runner, newlyWanted) = state.withValue { state in
            defer { state.newlyWanted = [:] }
            return (state.runner, state.newlyWanted)
        }
        guard let runner, !newlyWanted.isEmpty else { return }
        for event in events {
            let hookEvent = event.hookEvent(root: root)
            for (hook, kinds) in newlyWanted.sorted(by: { $0.key < $1.key }) where kinds.contains(event.kind) {
                runner.submit(hookEvent, to: hook)
            }
        }
    }

    /// For each hook of `new`, the event kinds it wants that its namesake in `old` did not.
    static func newlyWanted(old: [HookSpec], new: [HookSpec]) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for hook in new {
            let before = old.first { $0.name == hook.name }
            let kinds = PolicyEvent.kinds.filter { hook.wants($0) && before?.wants($0) != true }
            if !kinds.isEmpty { result[hook.name] = Set(kinds) }
        }
        return result
    }

    /// Kills runs under way and joins the hook threads.
    package func stop() {
        state.withValue { state in
            state.runner?.stop()
            state.runner = nil
        }
    }
}
