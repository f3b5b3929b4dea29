import QuotaWatchCore
import Testing

@Suite("PolicyJSON strings: whole when nothing needs escaping, escaped exactly when something does")
struct PolicyJSONStringTests {
    private func encoded(_ text: String) -> String { PolicyJSON.object(["k": .string(text)]).encoded }

    @Test("a plain path, non-ASCII included, is written as it is")
    func plain() {
        #expect(encoded("Library/Caches/com.big/d000/f000001") == #"{"k":"Library/Caches/com.big/d000/f000001"}"#)
        #expect(encoded("café/日本/🙂") == #"{"k":"café/日本/🙂"}"#)
        #expect(encoded("") == #"{"k":""}"#)
    }

    @Test("quotes, backslashes and control characters are escaped wherever they are")
    func escaped() {
        #expect(encoded("a\"b\\c") == #"{"k":"a\"b\\c"}"#)
        #expect(encoded("\n\r\t\u{01}é\u{1F}") == #"{"k":"\n\r\t\u0001é\u001f"}"#)
        #expect(encoded("end\"") == #"{"k":"end\""}"#)
    }
}
