import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// `status` replies: the rows of a tree query, and the `status --sync` markers whose replies
/// wait. A sync creates a marker file in ROOT; its event coming back through the queue proves
/// every earlier change applied, and the reply kept under it is answered then. Owned by the
/// engine thread.
struct StatusReplies {
    typealias Pending = (reply: ControlReply, query: StatusQuery)

    /// Every marker's name starts with it, so the tree knows a marker from a file.
    let markerPrefix = Array(".quotawatch-sync.\(ProcessIdentity.processID).".utf8)
    private var counter = 0
    /// Replies waiting for their marker, by marker.
    private var pending: [[UInt8]: Pending] = [:]

    /// Creates the next marker in ROOT and keeps `reply` under it; fails the reply, naming
    /// why, when no marker can be made.
    mutating func startSync(
        _ reply: ControlReply, _ query: StatusQuery, _ live: inout LiveTree<KernelFileSystem>,
        _ schedule: inout EngineSchedule, now: UInt64, rootDisplay: String
    ) {
        counter += 1
        let marker = markerPrefix + Array("\(counter)".utf8)
        do {
            // Made without a descriptor, so that a sync works however short of them the
            // daemon is.
            try live.fileSystem.root.createExclusiveFile(marker)
            pending[marker] = (reply, query)
            schedule.syncStarted(marker, at: now)
        } catch {
            if let status = try? live.fileSystem.root.status(), status.linkCount == 0 {
                // Deleted while we hold it open, which also holds back its IN_DELETE_SELF.
                live.noteRootGone()
                pending[marker] = (reply, query)
                schedule.syncStarted(marker, at: now)
                return
            }
            reply.fail(
                "cannot create the sync marker in \(rootDisplay): \(error); "
                    + "a sync needs write access to the root (status without --sync works without it)")
        }
    }

    mutating func take(_ marker: [UInt8]) -> Pending? { pending.removeValue(forKey: marker) }

    /// Every reply still waiting, which is no longer kept.
    mutating func takeAll() -> [[UInt8]: Pending] {
        defer { pending = [:] }
        return pending
    }

    /// Sends the rows `selection` asks for, and the counters; the cost is the rows selected,
    /// never the whole tree.
    static func sendTree(
        _ selection: TreeSelection, of tree: TallyTree, to reply: ControlReply, rootDisplay: String,
        counters: EngineReport
    ) {
        guard let rows = tree.rows(selection) else {
            reply.fail(
                "\(rootDisplay) has no directory '\(HumanText.name(selection.subtree))'; "
                    + "give a path relative to the root as status --json shows it")
            return
        }
        // The files of the selected directory alone: one pass over its entries, not its subtree.
        var files: [DirectoryRow]?
        if let limit = selection.files, let shown = tree.directory(atComponents: selection.components) {
            let prefix = selection.subtree.isEmpty ? [] : selection.subtree + [UInt8(ascii: "/")]
            files = tree.largestChildren(of: shown, limit: limit, including: .files).map { file in
                DirectoryRow(path: prefix + file.name, tally: file.tally)
            }
        }
        reply.send(
            StatusSnapshot(root: rootDisplay, rows: rows, engine: counters, files: files))
    }
}
