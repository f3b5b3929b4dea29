import CNcursesW
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchView

/// The terminal taken over by a full-screen view, through ncursesw: the alternate screen,
/// colours, wide characters, keys and resizes come from the library and terminfo; callers
/// hand it whole screens of ``StyledLine``s.
///
/// One at a time, used from one thread. ``stop()`` gives the terminal back as it was; it runs
/// again at exit (atexit) and, for a crash it can catch, from a fatal-signal handler, so that
/// a shell never stays in raw mode on the alternate screen. Termination signals are left to
/// the caller: block them (``TerminationSignals/block()``) and wait on a signalfd, then call
/// ``stop()`` from the thread that draws.
package final class TerminalScreen {
    private let window: UnsafeMutablePointer<WINDOW>
    private var isStopped = false
    private var pairs: [PairKey: Int16] = [:]
    private let hasColors: Bool

    private struct PairKey: Hashable {
        var foreground: Int16
        var background: Int16
    }

    /// Columns per character, as the terminal will draw them: the C library's `wcwidth`.
    package var width: DisplayWidth { Self.systemWidth }

    /// `wcwidth` under the current locale (a UTF-8 one once a screen has started).
    package static let systemWidth = DisplayWidth { scalar in Int(wcwidth(wchar_t(bitPattern: scalar.value))) }

    /// Takes over the terminal on standard input and output. Call it only when both are
    /// terminals (``FileDescriptor/isTerminal``). Throws, touching nothing, when `terminal`
    /// (TERM's value) names no terminal terminfo knows (``unknownTerminal(_:)`` tells beforehand). `colors` false
    /// (``TerminalColors/wanted(_:)`` for `NO_COLOR`) draws every style without its colours.
    package init(colors: Bool, terminal: String?) throws(TerminalScreenError) {
        // Wide characters need the user's locale (UTF-8 names, wcwidth).
        _ = setlocale(LC_ALL, "")
        // newterm, not initscr: initscr ends the process with curses' own message ("Error
        // opening terminal: unknown.") when TERM is unknown; newterm returns nil instead.
        if let problem = Self.unknownTerminal(terminal) { throw problem }
        guard let terminal, let window = quotawatch_newterm(terminal) else {
            throw TerminalScreenError(terminal: terminal ?? "")
        }
        self.window = window
        FatalSignalRestore.install(Self.resetSequence)
        TerminalRestoreAtExit.install()
        _ = cbreak()
        _ = noecho()
        _ = nonl()
        _ = keypad(window, true)
        _ = curs_set(0)
        // Escape alone arrives after this delay instead of the default second.
        _ = set_escdelay(25)
        hasColors = colors && has_colors()
        if hasColors {
            _ = start_color()
            _ = use_default_colors()
        }
    }

    deinit { stop() }

    /// Why a screen cannot start on the terminal named `name` (the value of TERM): it is
    /// empty, or terminfo has no entry for it; nil when curses can drive it. Looks the entry
    /// up without taking the terminal over.
    package static func unknownTerminal(_ name: String?) -> TerminalScreenError? {
        guard let name, !name.isEmpty else { return TerminalScreenError(terminal: "") }
        return quotawatch_terminal_known(name) == 1 ? nil : TerminalScreenError(terminal: name)
    }

    /// The terminal's size now.
    package var size: (rows: Int, columns: Int) {
        (Int(getmaxy(window)), Int(getmaxx(window)))
    }

    /// Replaces the screen with `lines` (row 0 first), each cut to the width; rows past the
    /// end are cleared. Only what changed reaches the terminal (curses compares).
    package func draw(_ lines: [StyledLine]) {
        guard !isStopped else { return }
        let (rows, columns) = size
        _ = werase(window)
        for (row, line) in lines.prefix(rows).enumerated() {
            var column = 0
            for span in line.clipped(to: columns, width: width).spans {
                _ = wattrset(window, Int32(truncatingIfNeeded: attributes(span.style)))
                var characters = span.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
                let spanColumns = width.columns(span.text)
                // A span ending in the last column would wrap the cursor; curses handles that,
                // but only if it is not asked to write past the edge.
                characters.append(0)
                _ = characters.withUnsafeBufferPointer { buffer in
                    mvwaddnwstr(window, Int32(row), Int32(column), buffer.baseAddress, Int32(buffer.count - 1))
                }
                column += spanColumns
            }
        }
        _ = wattrset(window, 0)
        _ = wrefresh(window)
    }

    /// Makes the next ``draw(_:)`` repaint every cell, not only what changed: after a resize,
    /// or when something else wrote to the terminal (a warning on stderr).
    package func invalidate() {
        guard !isStopped else { return }
        _ = clearok(window, true)
    }

    /// The next key, waiting at most `timeoutMilliseconds` (negative: forever); nil when none
    /// came in time.
    package func readKey(timeoutMilliseconds: Int) -> TerminalKey? {
        guard !isStopped else { return nil }
        wtimeout(window, Int32(timeoutMilliseconds))
        var character: wint_t = 0
        let kind = wget_wch(window, &character)
        switch kind {
        case KEY_CODE_YES: return Self.key(forCode: Int32(character))
        case OK: return Self.key(forCharacter: UInt32(character))
        default: return nil
        }
    }

    /// Whether the terminal is gone (its window closed, the ssh connection lost): ``readKey(timeoutMilliseconds:)``
    /// then returns nil at once, every time, so a loop waiting for a key would spin for ever.
    package var isHungUp: Bool { FileDescriptor(rawValue: 0).isHungUp }

    /// Gives the terminal back: leaves the alternate screen, shows the cursor, restores the
    /// modes. Calling it again does nothing.
    package func stop() {
        guard !isStopped else { return }
        isStopped = true
        _ = endwin()
    }

    // MARK: Keys

    static func key(forCode code: Int32) -> TerminalKey {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_ENTER: .enter
        case KEY_BACKSPACE: .backspace
        case KEY_RESIZE: .resize
        default: .other(code)
        }
    }

    static func key(forCharacter value: UInt32) -> TerminalKey {
        switch value {
        case 0x0d, 0x0a: return .enter
        case 0x7f, 0x08: return .backspace
        case 0x1b: return .escape
        case 0x09: return .tab
        default:
            guard let scalar = Unicode.Scalar(value) else { return .other(Int32(bitPattern: value)) }
            return .character(Character(scalar))
        }
    }

    // MARK: Styles

    private func attributes(_ style: TextStyle) -> UInt32 {
        var value: UInt32 = 0
        if style.bold { value |= 1 << 21 }  // A_BOLD
        if style.reverse { value |= 1 << 18 }  // A_REVERSE
        if style.dim { value |= 1 << 20 }  // A_DIM
        if hasColors, style.foreground != nil || style.background != nil {
            let pair = pairNumber(
                foreground: style.foreground?.rawValue ?? -1, background: style.background?.rawValue ?? -1)
            value |= (UInt32(pair) << 8) & 0xff00  // COLOR_PAIR(pair)
        }
        return value
    }

    private func pairNumber(foreground: Int16, background: Int16) -> Int16 {
        let key = PairKey(foreground: foreground, background: background)
        if let pair = pairs[key] { return pair }
        let pair = Int16(pairs.count + 1)
        guard pair < 256 else { return 0 }
        _ = init_pair(pair, foreground, background)
        pairs[key] = pair
        return pair
    }

    /// Leaves the alternate screen, shows the cursor and resets attributes: what a crash
    /// handler can write without asking terminfo (xterm's sequences, which tmux, screen and
    /// every terminal emulator in use understand).
    static let resetSequence: [UInt8] = Array("\u{1b}[0m\u{1b}[?25h\u{1b}[?1049l\r\n".utf8)
}

/// `endwin` at exit, for an exit that does not come through ``TerminalScreen/stop()``.
enum TerminalRestoreAtExit {
    static func install() {
        TerminalExitHook.install {
            _ = isendwin() ? 0 : endwin()
        }
    }
}

/// TERM names no terminal curses can drive: unset, or without a terminfo entry.
package struct TerminalScreenError: Error, CustomStringConvertible, Sendable {
    /// TERM's value; empty when it is unset.
    package var terminal: String

    package var description: String {
        let named = terminal.isEmpty ? "TERM is not set" : "TERM=\(terminal) names no terminal terminfo knows"
        return "\(named), so the full screen cannot start: set TERM to your terminal's type "
            + "(for example TERM=xterm-256color), or pipe the output (| cat) for plain lines"
    }
}
