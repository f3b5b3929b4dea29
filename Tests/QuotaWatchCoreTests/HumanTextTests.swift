import QuotaWatchCore
import QuotaWatchTestSupport
import QuotaWatchView
import Testing

@Suite("names as people see them")
struct HumanTextTests {
    @Test("every hostile name is shown in the one documented form, which maps back to its bytes")
    func corpus() {
        for (bytes, shown) in HostileNames.corpus {
            let text = HumanText.name(bytes)
            #expect(text == shown)
            #expect(HostileNames.rawControls(in: Array(text.utf8)).isEmpty, "\(text)")
            #expect(EscapedName.bytes(text) == bytes, "\(shown) reads back as the name's bytes")
        }
    }

    @Test("the output guard keeps the layout's newlines and tabs and escapes everything else")
    func forOutput() {
        #expect(HumanText.forOutput("a\tb\nc\u{1b}d\u{9b}e\u{202e}\r") == #"a\#tb\#nc\x1bd\xc2\x9be\xe2\x80\xae\x0d"#)
        #expect(HumanText.forOutput("plain ü 字 👍") == "plain ü 字 👍")
    }

    @Test("JSON for a terminal keeps its meaning: unsafe characters become \\u escapes")
    func json() {
        #expect(HumanText.jsonForTerminal("{\"p\":\"a\u{9b}b\u{202e}\"}\n") == #"{"p":"a\u009bb\u202e"}"# + "\n")
    }

    @Test("the watch view and the tables escape the same way")
    func oneSyntax() {
        for (bytes, shown) in HostileNames.corpus {
            #expect(DisplayWidth.builtIn.printable(EscapedName.string(bytes)) == shown)
            #expect(TableRenderer.printable(EscapedName.string(bytes)) == shown)
            #expect(StyledSpan(EscapedName.string(bytes)).text == shown)
        }
    }
}
