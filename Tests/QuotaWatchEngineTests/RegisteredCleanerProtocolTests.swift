import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// `register_cleaner` as decoded, and a registered cleaner's reply as read: every field
/// checked, each mistake named.
@Suite("register_cleaner and its replies")
struct RegisteredCleanerProtocolTests {
    private func decode(_ text: String) -> Result<ControlRequest, ControlProtocol.Failure> {
        ControlProtocol.decodeRequest(Array(text.utf8))
    }

    @Test("a registration round-trips, paths escaped and deduplicated, the timeout in milliseconds")
    func roundTrip() throws {
        let request = try decode(
            #"{"command":"register_cleaner","name":"feed","paths":["Library/Caches/feed","a\\xffb","Library/Caches/feed/"],"timeout_ms":1500}"#
        ).get()
        let expected = RegisterCleanerRequest(
            name: "feed", paths: [Array("Library/Caches/feed".utf8), Array("a".utf8) + [0xFF] + Array("b".utf8)],
            timeout: .milliseconds(1500))
        #expect(request.command == .registerCleaner(expected))
        #expect(try ControlProtocol.decodeRequest(Array(request.encodedLine().dropLast())).get() == request)
    }

    @Test(
        "each bad registration is named",
        arguments: [
            (#"{"command":"register_cleaner","name":"a","paths":["x"],"extra":true}"#, "unknown field 'extra'"),
            (#"{"command":"register_cleaner","paths":["x"]}"#, #"needs a "name""#),
            (#"{"command":"register_cleaner","name":"","paths":["x"]}"#, "'name' must be"),
            (#"{"command":"register_cleaner","name":"a","paths":[]}"#, #"needs "paths""#),
            (#"{"command":"register_cleaner","name":"a","paths":"x"}"#, "'paths' must be an array"),
            (#"{"command":"register_cleaner","name":"a","paths":["../x"]}"#, "leaves its directory"),
            (#"{"command":"register_cleaner","name":"a","paths":["/x"]}"#, "is absolute"),
            (#"{"command":"register_cleaner","name":"a","paths":["./"]}"#, "the root itself"),
            (#"{"command":"register_cleaner","name":"a","paths":["a\\q"]}"#, "backslash"),
            (#"{"command":"register_cleaner","name":"a","paths":["x"],"timeout_ms":600001}"#, "'timeout_ms' must be"),
            (#"{"command":"register_cleaner","name":"a","paths":["x"],"timeout_ms":-1}"#, "'timeout_ms' must be"),
        ])
    func badRegistration(_ text: String, _ expected: String) {
        guard case .failure(let failure) = decode(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(failure.description.contains(expected), "\(failure)")
    }

    @Test("a thousand paths in one registration are refused with the bound")
    func tooManyPaths() {
        let paths = (0..<1000).map { "\"p\($0)\"" }.joined(separator: ",")
        guard case .failure(let failure) = decode(#"{"command":"register_cleaner","name":"a","paths":[\#(paths)]}"#)
        else {
            Issue.record("accepted")
            return
        }
        #expect(failure.description.contains("at most 64"), "\(failure)")
    }

    private let paths = [Array("Caches/feed".utf8)]

    @Test("a reply names what was removed, inside its paths, and what was freed")
    func goodReply() throws {
        let result = try RegisteredCleanerWire.decodeReply(
            Array(#"{"context":3,"freed":8192,"removed":["Caches/feed/a","Caches/feed/a","Caches/feed/\\xff"]}"#.utf8),
            paths: paths
        ).get()
        #expect(result.removed.map(\.path) == [Array("Caches/feed/a".utf8), Array("Caches/feed/".utf8) + [0xFF]])
        #expect(result.freedBytes == 8192 && result.error == nil)
    }

    @Test(
        "each bad reply is named",
        arguments: [
            ("not json", "not a JSON object"),
            (#"["Caches/feed/a"]"#, "not a JSON object"),
            (#"{"freed":1,"colour":2}"#, "unknown field 'colour'"),
            (#"{"freed":-1}"#, "'freed' must be"),
            (#"{"freed":1.5}"#, "'freed' must be"),
            (#"{"removed":"Caches/feed/a"}"#, "'removed' must be"),
            (#"{"removed":["../etc/passwd"]}"#, "leaves its directory"),
            (#"{"removed":["Caches/feed/a\u0000b"]}"#, "holds a NUL byte"),
            (#"{"removed":["Caches/feed/a\\x00b"]}"#, "holds a NUL byte"),
            (#"{"removed":["Caches/feed/../feed/a"]}"#, "leaves its directory"),
            (#"{"removed":["Caches/feed//a"]}"#, "empty or '.' component"),
            (#"{"removed":["Caches/feed/a/"]}"#, "empty or '.' component"),
            (#"{"removed":["Caches/feed/./a"]}"#, "empty or '.' component"),
            (#"{"removed":[""]}"#, "empty or '.' component"),
            (#"{"removed":["/Caches/feed/a"]}"#, "an absolute path"),
            (#"{"removed":["Caches/feed/\\q"]}"#, "a backslash that starts neither"),
            (#"{"error":"index locked"}"#, "answered with an error: index locked"),
            (#"{"error":7}"#, "'error' must be a string"),
        ])
    func badReply(_ text: String, _ expected: String) {
        guard case .failure(let failure) = RegisteredCleanerWire.decodeReply(Array(text.utf8), paths: paths) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(failure.description.contains(expected), "\(failure)")
    }

    @Test("a reply that is not UTF-8 is named as such")
    func notUTF8Reply() {
        let line = Array(#"{"removed":["Caches/feed/"#.utf8) + [0xFF] + Array(#""]}"#.utf8)
        guard case .failure(let failure) = RegisteredCleanerWire.decodeReply(line, paths: paths) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.description.contains("not UTF-8 text"), "\(failure)")
    }

    @Test("a path outside its paths is reported and not counted")
    func outsideItsPaths() throws {
        let result = try RegisteredCleanerWire.decodeReply(
            Array(#"{"freed":10,"removed":["Caches/other/a","Caches/feedback/x","Caches/feed/b"]}"#.utf8), paths: paths
        ).get()
        #expect(result.removed.map(\.path) == [Array("Caches/feed/b".utf8)])
        #expect(result.error?.contains("2 path(s) outside its paths") == true, "\(result)")
    }

    @Test("a path concerns a registration when it is one of its paths, inside one, or above one")
    func concerns() {
        let paths = [Array("Library/Caches/feed".utf8)]
        #expect(RegisterCleanerRequest.concerns(paths, Array("Library/Caches/feed".utf8)))
        #expect(RegisterCleanerRequest.concerns(paths, Array("Library/Caches/feed/x".utf8)))
        #expect(RegisterCleanerRequest.concerns(paths, Array("Library/Caches".utf8)))
        #expect(!RegisterCleanerRequest.concerns(paths, Array("Library/Caches/feedback".utf8)))
        #expect(!RegisterCleanerRequest.concerns(paths, Array("Library/Caches/other".utf8)))
    }

    @Test("the Swift client's reply line is what the daemon reads")
    func clientReplyLine() throws {
        let line = RegisteredCleanerReply(freedBytes: 4096, removed: [Array("Caches/feed/".utf8) + [0xFE]]).line(
            context: 9)
        #expect(line.last == 0x0A)
        let result = try RegisteredCleanerWire.decodeReply(Array(line.dropLast()), paths: paths).get()
        #expect(result.removed.map(\.path) == [Array("Caches/feed/".utf8) + [0xFE]] && result.freedBytes == 4096)
    }
}
