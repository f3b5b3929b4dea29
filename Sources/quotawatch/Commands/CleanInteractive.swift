import Dispatch
import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTerminal
import QuotaWatchView
import Synchronization

/// The storage page on a terminal (``CleanPicker`` drawn with the terminal toolkit): space
/// marks, enter confirms with a summary, q leaves. Ctrl-C and the other termination signals
/// leave too, deleting nothing, with the terminal given back first.
enum CleanInteractive {
    enum Result {
        case confirmed(CleanSelection)
        case quit
        case interrupted(Int32)
        /// TERM names no terminal curses can drive.
        case noScreen(TerminalScreenError)
    }

    static func pick(_ page: [CleanCategorySummary], output: CleanPageOutput) -> Result {
        // Signals wait on a signalfd, so that the terminal is restored before the process ends.
        TerminationSignals.block()
        let interrupted = Atomic<Int32>(0)
        let waiter = try? TerminationSignalWaiter()
        let signalThread = waiter.map { waiter in
            JoinableThread(name: "clean-signals") {
                if let signal = waiter.wait() { interrupted.store(signal, ordering: .relaxed) }
            }
        }
        defer {
            if let waiter {
                waiter.stop()
                signalThread?.join()
                waiter.close()
            }
        }
        let environment = ProcessInfo.processInfo.environment
        let screen: TerminalScreen
        do {
            screen = try TerminalScreen(colors: TerminalColors.wanted(environment), terminal: environment["TERM"])
        } catch {
            return .noScreen(error)
        }
        defer { screen.stop() }
        var picker = CleanPicker(page: page, format: output.format, nowNanoseconds: output.nowNanoseconds)
        while true {
            let signal = interrupted.load(ordering: .relaxed)
            if signal != 0 { return .interrupted(signal) }
            let (rows, columns) = screen.size
            screen.draw(picker.draw(rows: rows, columns: columns, width: screen.width, root: output.root))
            // A short wait, so that a signal is noticed without a key.
            guard let key = screen.readKey(timeoutMilliseconds: 200) else {
                if screen.isHungUp { return .quit }  // the terminal went away: delete nothing
                continue
            }
            switch picker.handle(key, visibleRows: max(1, rows - 3)) {
            case .pending: continue
            case .quit: return .quit
            case .confirmed(let selection): return .confirmed(selection)
            }
        }
    }
}
