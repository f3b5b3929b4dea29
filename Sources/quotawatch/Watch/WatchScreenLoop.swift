import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchTerminal
import QuotaWatchView

/// The full-screen view: takes what the session's feed holds, draws it, reads keys. Runs on
/// the main thread until `q`, a termination signal (the feed says so) or the engine's end.
enum WatchScreenLoop {
    /// How long a key is waited for between looks at the feed: the screen's refresh period
    /// when nothing is typed.
    static let keyTimeoutMilliseconds = 100

    static func run(_ session: WatchSession, format: ByteFormat) -> ExitStatus {
        let environment = ProcessInfo.processInfo.environment
        let screen: TerminalScreen
        do {
            screen = try TerminalScreen(colors: TerminalColors.wanted(environment), terminal: environment["TERM"])
        } catch {
            session.stop()
            Console.failure("\(error)")
            return .failure
        }
        // A line written to the terminal would scramble the screen: the log goes to the view's
        // event log instead, from the engine's first line on (``WatchInProcess``), and back to
        // standard error when the screen closes.
        defer { Log.redirect(to: nil) }
        var model = WatchModel(format: format)
        model.attachedTo = session.attachedTo
        model.deletes = session.deletes
        var layout = layoutFor(screen)
        var dirty = true
        var lastDraw = ContinuousClock.now
        var finish: WatchFeed.Finish?
        loop: while true {
            let taken = session.feed.take()
            if take(taken, into: &model, layout: layout, format: format) { dirty = true }
            // A notice goes away after a few seconds.
            if model.tick(now: LocalTime.millisecondsNow) { dirty = true }
            if let finished = taken.finished {
                finish = finished
                break
            }
            // Ages in the candidate list move on even when nothing else does.
            if dirty || ContinuousClock.now - lastDraw > .seconds(1) {
                screen.draw(layout.screen(model, now: LocalTime.millisecondsNow))
                model.state.noteDrawn(questionWhole: layout.showsQuestionWhole(model))
                lastDraw = ContinuousClock.now
                dirty = false
            }
            guard let key = screen.readKey(timeoutMilliseconds: keyTimeoutMilliseconds) else {
                // Nobody is left to look or to press q: end as q would.
                if screen.isHungUp {
                    finish = WatchFeed.Finish(status: .success, message: "quotawatch: the terminal went away")
                    break
                }
                continue
            }
            dirty = true
            if key == .resize || key == .character("\u{0c}") {
                layout = layoutFor(screen)
                screen.invalidate()
                model.state.noteDrawn(questionWhole: false)  // until drawn at the new size
                continue
            }
            if layout.isTooSmall {
                if key == .character("q") || key == .character("Q") { break loop }
                continue
            }
            switch model.handle(key, listRows: layout.listRows(model), now: LocalTime.millisecondsNow) {
            case .none: break
            case .showDirectory(let directory): session.feed.show(directory)
            case .cleanNow: session.cleanNow(format: format)
            case .delete(let target): session.delete(target.path, format: format)
            case .quit: break loop
            }
            model.state.logOffset = min(model.state.logOffset, layout.maximumLogOffset(model))
        }
        screen.stop()
        session.stop()
        // What the feed said after the screen closed (the engine's own end) counts too.
        let ending = finish ?? session.feed.take().finished
        if let message = ending?.message { Console.error(message + "\n") }
        return ending?.status ?? .success
    }

    private static func layoutFor(_ screen: TerminalScreen) -> WatchLayout {
        let size = screen.size
        return WatchLayout(rows: size.rows, columns: size.columns, width: screen.width)
    }

    /// Moves what was taken from the feed into the model; true when something changed.
    private static func take(
        _ taken: WatchFeed.Taken, into model: inout WatchModel, layout: WatchLayout, format: ByteFormat
    ) -> Bool {
        var changed = false
        if let frame = taken.frame {
            model.receive(frame, listRows: layout.listRows(model))
            changed = true
        }
        let now = LocalTime.millisecondsNow
        let offset = LocalTime.utcOffset
        if taken.droppedEvents > 0 {
            model.receive(
                EventLine(
                    time: EventLine.localTime(now, utcOffset: offset), kind: "dropped",
                    details: "\(taken.droppedEvents) event(s) dropped: the view fell behind", severity: .warning))
            changed = true
        }
        for line in taken.events {
            guard let event = EventLine.parse(line, receivedAt: now, utcOffset: offset, format: format)
            else { continue }
            model.receive(event)
            changed = true
        }
        for (warns, text) in taken.logLines {
            let message = text.hasPrefix("quotawatch: ") ? String(text.dropFirst("quotawatch: ".count)) : text
            model.receive(
                EventLine(
                    time: EventLine.localTime(now, utcOffset: offset), kind: "log", details: message,
                    severity: warns ? .warning : .info))
            changed = true
        }
        if let notice = taken.notices.last {
            model.post(notice: notice, now: now)
            changed = true
        }
        return changed
    }
}
