import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Hostile requests on the control socket of a real daemon: each is answered with an error
/// line naming what is wrong (or the connection is closed), and the daemon stays exact and
/// keeps answering everyone else.
@Suite("control socket bad-input corpus")
struct ControlSocketCorpusTests {
    private let root = LiveFixture.root

    /// A request as sent, and what its error must say.
    struct Case: CustomStringConvertible {
        let name: String
        let bytes: [UInt8]
        let expected: String
        var description: String { name }
    }

    static let cases: [Case] = {
        let line = { (text: String) in Array(text.utf8) + [0x0A] }
        let malformed = "malformed request"
        return [
            Case(name: "not JSON", bytes: line("status please"), expected: malformed),
            Case(name: "an empty line", bytes: [0x0A], expected: malformed),
            Case(name: "a JSON array", bytes: line("[]"), expected: malformed),
            Case(name: "a JSON string", bytes: line(#""status""#), expected: malformed),
            Case(name: "a number out of range", bytes: line("1e999"), expected: malformed),
            Case(
                name: "a huge line", bytes: Array(repeating: UInt8(ascii: "x"), count: 200_000),
                expected: "longer than 65536 bytes"),
            Case(
                name: "a huge line with a newline far in",
                bytes: Array(#"{"command":"status","path":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 70_000)
                    + line(#""}"#), expected: "longer than 65536 bytes"),
            Case(
                name: "a NUL byte in the JSON", bytes: Array(#"{"command":"sta"#.utf8) + [0] + line(#"tus"}"#),
                expected: "'command' must be"),
            Case(
                name: "an escaped NUL in the command", bytes: line(#"{"command":"status\u0000"}"#),
                expected: "unknown command"),
            Case(
                name: "an escaped NUL in the path", bytes: line(#"{"command":"status","path":"a\u0000b"}"#),
                expected: "path"),
            Case(
                name: "bytes that are not UTF-8", bytes: Array(#"{"command":""#.utf8) + [0xFF, 0xFE] + line(#""}"#),
                expected: "not UTF-8 text (byte 0xff at offset 12)"),
            Case(
                name: "an unknown command", bytes: line(#"{"command":"frobnicate"}"#),
                expected: "unknown command 'frobnicate'"),
            Case(name: "no command", bytes: line(#"{"depth":1}"#), expected: "the request has no"),
            Case(name: "a command that is a number", bytes: line(#"{"command":7}"#), expected: "'command' must be"),
            Case(
                name: "depth as a string", bytes: line(#"{"command":"status","depth":"1"}"#),
                expected: "'depth' must be"),
            Case(name: "sync as a number", bytes: line(#"{"command":"status","sync":1}"#), expected: "'sync' must be"),
            Case(
                name: "a negative depth", bytes: line(#"{"command":"status","depth":-1}"#), expected: "'depth' must be"),
            Case(
                name: "a depth past Int64", bytes: line(#"{"command":"status","depth":99999999999999999999999}"#),
                expected: "'depth' must be"),
            Case(name: "a fractional top", bytes: line(#"{"command":"status","top":1.5}"#), expected: "'top' must be"),
            Case(name: "top zero", bytes: line(#"{"command":"status","top":0}"#), expected: "'top' must be"),
            Case(
                name: "a clean_delete age past UInt64",
                bytes: line(
                    #"{"command":"clean_delete","older_than_ms":184467440737095516150,"categories":["caches"]}"#),
                expected: "'older_than_ms' must be"),
            Case(
                name: "an unknown field", bytes: line(#"{"command":"status","frob":1}"#),
                expected: "unknown field 'frob'"),
            Case(
                name: "a path outside the root", bytes: line(#"{"command":"status","path":"../x"}"#), expected: "path"),
            Case(
                name: "deeply nested arrays",
                bytes: line(String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)),
                expected: malformed),
            Case(
                name: "deeply nested objects",
                bytes: line(String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)),
                expected: "command"),
            Case(
                name: "a deeply nested field value",
                bytes: line(
                    #"{"command":"status","depth":"# + String(repeating: "[", count: 20_000)
                        + String(repeating: "]", count: 20_000) + "}"),
                expected: malformed),
        ]
    }()

    @Test("every hostile request gets an error naming the problem; the daemon stays exact")
    func corpus() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "a" / "b")
        try fixture.tree.writeFile(root / "a" / "b" / "file", byteCount: 123_456)
        let daemon = try fixture.start()
        // One idle client holds on through the whole corpus.
        let idle = try RawSocket.unix(fixture.socketPath)

        for item in Self.cases {
            let client = try RawSocket.unix(fixture.socketPath)
            // A client flooding a huge line may find the connection closed before it is done.
            _ = try? client.send(item.bytes)
            let reply = String(decoding: try client.receiveLine().line, as: UTF8.self)
            #expect(reply.hasPrefix(#"{"error":""#), "\(item): \(reply)")
            #expect(reply.contains(item.expected), "\(item): expected '\(item.expected)' in \(reply)")
            #expect(try client.receiveToEnd().isEmpty, "\(item): more after the error line")
        }
        try fixture.tree.writeFile(root / "a" / "after-corpus", byteCount: 55_000)
        try fixture.expectLiveMatchesScan("after the corpus", du: true)
        withExtendedLifetime(idle) {}
        try fixture.stopCleanly()
        _ = daemon
    }

    @Test("10 000 requests pipelined on one connection: the first is answered, then the connection closes")
    func pipelined() throws {
        let fixture = try LiveFixture()
        try fixture.tree.writeFile(root / "file", byteCount: 10_000)
        _ = try fixture.start()

        let client = try RawSocket.unix(fixture.socketPath)
        let request = Array(#"{"command":"status","depth":0}"#.utf8) + [0x0A]
        var flood: [UInt8] = []
        for _ in 0..<10_000 { flood += request }
        // As much as the socket takes, until the daemon closes its side.
        var offset = 0
        while offset < flood.count, let sent = client.sendWithoutWaiting(Array(flood[offset...])), sent > 0 {
            offset += sent
        }
        let reply = try client.receiveLine()
        let text = String(decoding: reply.line, as: UTF8.self)
        #expect(text.contains(#""rows":[[".""#), "the first request was not answered: \(text)")
        #expect(try client.receiveToEnd().isEmpty, "a second reply came on the same connection")
        try fixture.expectLiveMatchesScan("after the flood", du: true)
        try fixture.stopCleanly()
    }

    @Test("half-closed connections: a request without a newline is answered, nothing at all is closed")
    func halfClose() throws {
        let fixture = try LiveFixture()
        try fixture.tree.writeFile(root / "file", byteCount: 10_000)
        _ = try fixture.start()

        let withRequest = try RawSocket.unix(fixture.socketPath)
        try withRequest.send(Array(#"{"command":"status","depth":0}"#.utf8))
        withRequest.shutdownWrite()
        let reply = String(decoding: try withRequest.receiveLine().line, as: UTF8.self)
        #expect(reply.contains(#""rows":[[".""#), "\(reply)")

        let empty = try RawSocket.unix(fixture.socketPath)
        empty.shutdownWrite()
        #expect(try empty.receiveToEnd().isEmpty)

        let half = try RawSocket.unix(fixture.socketPath)
        try half.send(Array(#"{"command":"sta"#.utf8))
        half.shutdownWrite()
        let error = String(decoding: try half.receiveLine().line, as: UTF8.self)
        #expect(error.contains("malformed request"), "\(error)")
        try fixture.expectLiveMatchesScan("after the half-closed clients", du: true)
        try fixture.stopCleanly()
    }
}
