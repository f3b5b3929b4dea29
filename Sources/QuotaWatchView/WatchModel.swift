import QuotaWatchCore

/// Everything the view knows, fed by frames, events and keys, and drawn by ``WatchLayout``.
/// Pure: the app owns one on its drawing thread and hands it what arrives.
package struct WatchModel: Sendable {
    package var state = WatchState()
    /// The last frame taken (held while paused); nil before the first.
    package private(set) var frame: WatchFrame?
    package private(set) var growth = GrowthTracker()
    /// The newest events last, at most ``logCapacity``.
    package private(set) var log: [EventLine] = []
    package var logCapacity = 200
    /// Leftovers reported and not yet removed by a cleanup, by path.
    package private(set) var candidates: [String: EventLine.Leftover] = [:]
    /// Set by the app: attached to a daemon on this socket, shown in the header.
    package var attachedTo: String?
    /// Set by the app: whether this engine deletes (`--clean` without `--dry-run`); nil when
    /// attached, where the daemon's options decide. The `c` confirmation says which.
    package var deletes: Bool?
    /// A message for the footer (a cleanup's outcome, say) until ``noticeDeadline``.
    package private(set) var notice: String?
    /// When ``notice`` goes away, in milliseconds since the epoch.
    package private(set) var noticeDeadline: Int64 = 0
    /// How long a notice stays, in milliseconds.
    package static let noticeMilliseconds: Int64 = 5000
    package var format: ByteFormat
    private var restorePending = false
    /// The directory shown when it went away, while the view goes up to one still there.
    private var leftForGone: [UInt8]?
    /// Everything drawn besides the frame, as it was when `p` paused the view; nil while live.
    private var frozen: Frozen?
    /// The newest frame of the directory shown that came while paused: shown as `p` resumes,
    /// so that the sizes on the screen are of the moment the rates beside them are of.
    private var heldFrame: WatchFrame?

    private struct Frozen: Sendable {
        var growth: GrowthTracker
        var log: [EventLine]
        var candidates: [String: EventLine.Leftover]
        var at: Int64
    }

    package init(format: ByteFormat = .decimal) { self.format = format }

    /// Takes a new frame, unless paused. A frame of another directory than the one shown (the
    /// engine had not yet seen a change of directory) is ignored.
    @discardableResult
    package mutating func receive(_ newFrame: WatchFrame, listRows: Int, now: Int64 = 0) -> WatchCommand {
        receive(newFrame, listRows: { _ in listRows }, now: now)
    }

    /// As ``receive(_:listRows:)-(_,Int)``, with the list's rows measured once the frame is in:
    /// how many the list gets depends on its length (``WatchLayout/listRows(_:)``), and a
    /// directory just entered or left had none before its first frame.
    ///
    /// A frame saying the directory shown is gone (removed or moved away) takes the view up a
    /// level, and the next up while the parent is gone too, to the nearest that is there; the
    /// footer says so. The command returned asks for that directory then.
    @discardableResult
    package mutating func receive(
        _ newFrame: WatchFrame, listRows rowsFor: (WatchModel) -> Int, now: Int64 = 0
    ) -> WatchCommand {
        guard newFrame.directory == state.directory else { return .none }
        if !newFrame.directoryExists, !state.directory.isEmpty {
            // Several levels gone at once: the notice names the one the person was looking at.
            let left = restorePending ? leftForGone ?? state.directory : state.directory
            leftForGone = left
            let gone = DisplayWidth.builtIn.printable(EscapedName.string(left))
            let command = state.showParent()
            restorePending = true
            heldFrame = nil
            showBlankFrame()
            let parent = DisplayWidth.builtIn.printable("./" + EscapedName.string(state.directory))
            post(notice: "./\(gone) is gone (removed or moved): showing \(parent)", now: now)
            return command
        }
        leftForGone = nil
        // Paused too: the rates go on from every frame, so that none spans the pause.
        if newFrame.crawl == nil { growth.record(newFrame) }
        // Paused, the list stays as it was, except that a directory just entered is shown once.
        guard !state.paused || restorePending else {
            heldFrame = newFrame
            return .none
        }
        show(newFrame, listRows: rowsFor)
        return .none
    }

    /// Puts `newFrame` on the screen, the highlight kept on its item.
    private mutating func show(_ newFrame: WatchFrame, listRows rowsFor: (WatchModel) -> Int) {
        let selected = selectedName()
        frame = newFrame
        heldFrame = nil
        let items = rowItems()
        let listRows = rowsFor(self)
        if restorePending {
            restorePending = false
            state.restoreSelection(rows: items, visibleRows: listRows)
        } else {
            // The highlight stays on its item, directory or file, as sizes change and the list
            // re-sorts.
            keepSelection(on: selected, listRows: listRows)
        }
        state.cursor.clamp(count: items.count, visibleRows: listRows)
    }

    /// The name of the highlighted row, if any. A name is unique among a directory's entries,
    /// files and subdirectories alike, so it alone says which item the highlight is on.
    private func selectedName() -> [UInt8]? {
        let items = rowItems()
        return items.indices.contains(state.cursor.selected) ? items[state.cursor.selected].name : nil
    }

    private mutating func keepSelection(on name: [UInt8]?, listRows: Int) {
        guard let name else { return }
        let items = rowItems()
        guard let index = items.firstIndex(where: { $0.name == name }), index != state.cursor.selected else { return }
        state.cursor.select(index, count: items.count, visibleRows: listRows)
    }

    /// Takes one event (already parsed).
    package mutating func receive(_ event: EventLine) {
        if let run = event.finishedRun {
            log.removeAll { $0.progressOf?.hasPrefix(run + "/") == true }
        }
        // A cleaner's progress updates its line in place: one line while it goes on.
        if let progress = event.progressOf, let index = log.lastIndex(where: { $0.progressOf == progress }) {
            log.remove(at: index)
        }
        log.append(event)
        if log.count > logCapacity { log.removeFirst(log.count - logCapacity) }
        if let leftover = event.leftover { candidates[leftover.path] = leftover }
        for path in event.removedPaths { candidates.removeValue(forKey: path) }
    }

    /// Shows `text` in the footer for ``noticeMilliseconds`` from `now` (ms since the epoch).
    package mutating func post(notice text: String, now: Int64) {
        notice = text
        noticeDeadline = now + Self.noticeMilliseconds
    }

    /// The clock's tick: a notice past its deadline goes away. True when the screen changed.
    @discardableResult
    package mutating func tick(now: Int64) -> Bool {
        guard notice != nil, now >= noticeDeadline else { return false }
        notice = nil
        return true
    }

    // MARK: What is drawn (held while paused)

    /// The growth rates shown: those of the moment `p` was pressed while paused.
    package var shownGrowth: GrowthTracker { frozen?.growth ?? growth }
    /// The log shown, newest last.
    package var shownLog: [EventLine] { frozen?.log ?? log }
    /// The cleanup candidates shown.
    package var shownCandidates: [String: EventLine.Leftover] { frozen?.candidates ?? candidates }
    /// The time the screen is drawn at: `now`, or the moment of the pause (ages stand still).
    package func shownTime(_ now: Int64) -> Int64 { frozen?.at ?? now }

    /// Applies a key; see ``WatchState/handle(_:rows:visibleRows:cleanAllowed:)``. `now` (ms
    /// since the epoch) is the moment a pause freezes the screen at.
    package mutating func handle(
        _ key: TerminalKey, listRows: Int, cleanAllowed: Bool = true, now: Int64 = 0
    ) -> WatchCommand {
        let selected = selectedName()
        let order = (state.sort, state.showsApparent)
        let wasPaused = state.paused
        let items = rowItems()
        let inDialog = state.dialog != .none
        let command = state.handle(key, rows: items, visibleRows: listRows, cleanAllowed: cleanAllowed)
        if key == .enter || key == .right, !inDialog, items.indices.contains(state.cursor.selected),
            !items[state.cursor.selected].isDirectory
        {
            // Enter on a file opens nothing; say why rather than seem to ignore the key.
            let shown = DisplayWidth.builtIn.printable(EscapedName.string(items[state.cursor.selected].name))
            post(notice: "\(shown) is a file; only directories open", now: now)
        }
        if order != (state.sort, state.showsApparent) { keepSelection(on: selected, listRows: listRows) }
        if state.paused != wasPaused {
            frozen = state.paused ? Frozen(growth: growth, log: log, candidates: candidates, at: now) : nil
            // Resumed: what came meanwhile at once, not the paused sizes beside the live rates
            // until the next frame.
            if !state.paused, let held = heldFrame { show(held, listRows: { _ in listRows }) }
        }
        if case .showDirectory = command {
            restorePending = true
            leftForGone = nil
            heldFrame = nil
            // Paused, the rates held were of the other directory's children: none until resumed.
            frozen?.growth = GrowthTracker()
            // Paused or not, the new directory's first frame is shown.
            showBlankFrame()
        }
        return command
    }

    /// Until the first frame of the directory now shown arrives: the root's figures, no rows.
    private mutating func showBlankFrame() {
        frame = frame.map { old in
            var blank = WatchFrame(root: old.root, directory: state.directory)
            blank.rootAllocated = old.rootAllocated
            blank.rootApparent = old.rootApparent
            blank.quotas = old.quotas
            blank.level = old.level
            blank.free = old.free
            blank.diskTotal = old.diskTotal
            blank.events = old.events
            return blank
        }
    }

    /// The rows of the list in the order shown.
    package func rows() -> [WatchRow] {
        guard let frame else { return [] }
        // A directory under several rules shows the strictest: the one furthest past (or
        // nearest to) its limit, as status --quotas and the header count it.
        let quotas = Dictionary(frame.quotas.map { ($0.path, $0) }) { $0.isStricter(than: $1) ? $0 : $1 }
        var rows = frame.entries.map { entry in
            WatchRow(
                name: entry.name, display: DisplayWidth.builtIn.printable(EscapedName.string(entry.name)),
                size: state.showsApparent ? entry.apparent : entry.allocated, files: entry.files,
                growth: shownGrowth.bytesPerSecond(entry.name),
                // Quotas are on directories: a file's row never shows one.
                quota: entry.isDirectory ? quotas[EscapedName.string(frame.childPath(entry.name))] : nil,
                isDirectory: entry.isDirectory)
        }
        switch state.sort {
        case .size:
            rows.sort { $0.size != $1.size ? $0.size > $1.size : $0.name.lexicographicallyPrecedes($1.name) }
        case .name:
            rows.sort { $0.name.lexicographicallyPrecedes($1.name) }
        case .growth:
            rows.sort {
                let (left, right) = ($0.growth ?? 0, $1.growth ?? 0)
                return left != right ? left > right : $0.size > $1.size
            }
        }
        return rows
    }

    func rowItems() -> [WatchState.Item] {
        rows().map { WatchState.Item(name: $0.name, isDirectory: $0.isDirectory, size: $0.size, files: $0.files) }
    }
}

/// One line of the list: a subdirectory or a file of the directory shown.
package struct WatchRow: Sendable, Equatable {
    package var name: [UInt8]
    /// The name escaped and with control characters shown, ready to draw.
    package var display: String
    /// Allocated or apparent, as the view shows.
    package var size: UInt64
    package var files: UInt64
    /// Bytes per second over the last seconds; nil until known.
    package var growth: Double?
    package var quota: QuotaStatus.Row?
    /// False for a file: drawn without the `/` and without a file count, and not opened.
    package var isDirectory: Bool = true
}
