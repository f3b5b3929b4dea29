import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchView

/// `watch` with stdout not a terminal: one human-readable line per event (``EventLine``),
/// written as each arrives, so `quotawatch watch ROOT | tee log` reads like the screen's log.
enum WatchPipe {
    /// `jsonLines`: the engine already writes `--events jsonl` to stdout; print nothing more.
    static func run(_ session: WatchSession, format: ByteFormat, jsonLines: Bool = false) -> ExitStatus {
        var finish: WatchFeed.Finish?
        while finish == nil {
            session.feed.waitForChange(milliseconds: 1000)
            let taken = session.feed.take()
            finish = taken.finished
            if !jsonLines && !write(taken.events, format: format) {
                // The reader went away (`| head`): nobody is left to tell.
                session.stop()
                return .success
            }
        }
        session.stop()
        if !jsonLines { _ = write(session.feed.take().events, format: format) }
        if let message = finish?.message { Console.error(message + "\n") }
        return finish?.status ?? .success
    }

    /// Writes one line per event; false when stdout is closed.
    private static func write(_ events: [String], format: ByteFormat) -> Bool {
        let now = LocalTime.millisecondsNow
        let offset = LocalTime.utcOffset
        var text = ""
        for json in events {
            guard let line = EventLine.parse(json, receivedAt: now, utcOffset: offset, format: format)
            else { continue }
            text += line.text + "\n"
        }
        guard !text.isEmpty else { return true }
        do {
            try FileDescriptor.standardOutput.writeAll(HumanText.forOutput(text).utf8)
            return true
        } catch {
            return false
        }
    }
}
