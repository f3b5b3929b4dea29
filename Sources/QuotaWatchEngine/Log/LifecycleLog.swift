import QuotaWatchCore

/// Writes the engine's life to the log: `info` when it is ready and when it stops, `notice`
/// around a SIGHUP reload, and at `debug` every event line as `--events jsonl` prints it.
/// Each line names its root: a daemon serving several writes them once per root.
package final class LifecycleLog: EngineObserver {
    /// ROOT as the event lines name it.
    let root: String

    package init(root: String) { self.root = root }

    package func engine(_ change: EngineLifecycle, _ view: EngineView) {
        switch change {
        case .ready:
            let total = view.tree.tally(of: view.tree.root)
            let files = view.tree.fileCount == 1 ? "1 file" : "\(view.tree.fileCount) files"
            let directories =
                view.tree.directoryCount == 1 ? "1 directory" : "\(view.tree.directoryCount) directories"
            Log.info(
                "ready: watching \(view.rootDisplay): \(files) in \(directories), "
                    + "\(ByteFormat.decimal.string(total.allocated)) allocated")
        case .reloading:
            Log.notice("SIGHUP: reading the config of \(view.rootDisplay) again")
        case .reloaded(let applied):
            // A failed reload has already said why, as a warning.
            if applied { Log.notice("SIGHUP: the config of \(view.rootDisplay) is reloaded") }
        case .stopping:
            Log.info("stopping: \(view.rootDisplay)")
        }
    }

    package func engineEmitted(_ event: ObservedEvent) {
        Log.debug("event: \(event.jsonLine(root: root))")
    }
}
