import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// The engine's side of the alert hooks: the runner lives beside the loop, takes every
/// policy event from ``LiveEngine/publish(_:)``, and reports failed runs back through the
/// mailbox, so `hook_failed` is published on the engine thread like every other event.
extension LiveEngine {
    /// Starts a runner for `hooks` (none for an empty list). Returns why it could not start.
    func startHooks(_ hooks: [HookSpec]) -> String? {
        guard !hooks.isEmpty else {
            self.hooks = nil
            return nil
        }
        let mailbox = self.mailbox
        do {
            // Hooks start in ROOT: QUOTAWATCH_PATH is relative to it.
            self.hooks = try HookRunner(hooks: hooks, workingDirectory: options.root) { failure in
                mailbox.post(.hookFailed(failure))
            }
            return nil
        } catch {
            return "cannot start the hook runner: \(error)"
        }
    }

    /// Kills runs under way and joins the hook threads.
    func stopHooks() {
        hooks?.stop()
        hooks = nil
    }

    /// After a good reload: the hooks of the new config replace the old ones when they differ.
    func replaceHooks(with new: [HookSpec]) {
        guard new != (monitor?.config.hooks ?? []) || (hooks == nil) != new.isEmpty else { return }
        stopHooks()
        if let failure = startHooks(new) {
            Log.write(.warning, Diagnostic.note("SIGHUP: \(failure); no hooks run now"))
        }
    }

    func reportHookFailure(_ failure: HookFailure) {
        Log.warning(failure.summary)
        var tail = String(decoding: failure.standardErrorTail, as: UTF8.self)
        if let startError = failure.startError { tail = startError + (tail.isEmpty ? "" : "\n" + tail) }
        publish(
            PolicyEvent(
                .hookFailed(
                    hook: failure.hookName, failedEvent: failure.eventKind, status: failure.exitStatus,
                    signal: failure.signal, standardErrorTail: tail), time: .now()))
    }
}
