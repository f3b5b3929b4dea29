import Glibc
import QuotaWatchCore
import QuotaWatchView
import Testing

@testable import QuotaWatchTerminal

@Suite("terminal toolkit")
struct TerminalScreenTests {
    @Test("curses key codes and control characters map to the keys views handle")
    func keys() {
        #expect(TerminalScreen.key(forCode: 0o403) == .up)  // KEY_UP
        #expect(TerminalScreen.key(forCode: 0o402) == .down)  // KEY_DOWN
        #expect(TerminalScreen.key(forCode: 0o407) == .backspace)  // KEY_BACKSPACE
        #expect(TerminalScreen.key(forCode: 0o632) == .resize)  // KEY_RESIZE
        #expect(TerminalScreen.key(forCharacter: 0x0d) == .enter)
        #expect(TerminalScreen.key(forCharacter: 0x7f) == .backspace)
        #expect(TerminalScreen.key(forCharacter: 0x1b) == .escape)
        #expect(TerminalScreen.key(forCharacter: 0x73) == .character("s"))
        #expect(TerminalScreen.key(forCharacter: 0x65e5) == .character("日"))
    }

    @Test(
        "the pure width table agrees with the C library's wcwidth on what names use",
        .enabled(if: setlocale(LC_CTYPE, "C.UTF-8") != nil, "the C.UTF-8 locale is missing"))
    func widthsAgree() {
        let samples = "aZ09 -_.~éßøΩЖאب日本語ｶﾅ한글가ー。、😀📦🚀✅❌⭐e\u{301}\u{200b}"
        for scalar in samples.unicodeScalars {
            #expect(
                DisplayWidth.builtIn.scalarWidth(scalar) == TerminalScreen.systemWidth.scalarWidth(scalar),
                "U+\(String(scalar.value, radix: 16, uppercase: true))")
        }
        #expect(TerminalScreen.systemWidth.scalarWidth("\u{1b}") < 0)
    }
}
