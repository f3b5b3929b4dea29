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
        #expect(encoded("\u{08}\u{0C}") == #"{"k":"\b\f"}"#)
    }

    @Test("numbers: three decimals, an integer when whole, null when not finite")
    func numbers() {
        #expect(PolicyJSON.object(["k": .number(1.0)]).encoded == #"{"k":1}"#)
        #expect(PolicyJSON.object(["k": .number(0.04251)]).encoded == #"{"k":0.043}"#)
        #expect(PolicyJSON.object(["k": .number(3600.4567)]).encoded == #"{"k":3600.457}"#)
        #expect(PolicyJSON.object(["k": .number(.nan)]).encoded == #"{"k":null}"#)
        #expect(
            PolicyJSON.object(["k": .unsigned(.max), "j": .integer(.min)]).encoded
                == #"{"j":-9223372036854775808,"k":18446744073709551615}"#)
        #expect(PolicyJSON.numberText(2.5) == "2.5" && PolicyJSON.numberText(-0.0004) == "0")
    }

    @Test("a free-form value reads back as it was written")
    func roundTrip() throws {
        let value = PolicyJSON.object([
            "a": .array([.string("x/y"), .bool(true), .null, .integer(-3), .unsigned(.max), .number(0.5)]),
            "b": .object(["c": .object([:])]),
        ])
        #expect(try ContractJSON.decode(PolicyJSON.self, from: Array(value.encoded.utf8)) == value)
    }
}
