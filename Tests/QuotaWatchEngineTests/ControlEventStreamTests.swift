import Foundation
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

@Suite("control socket event stream")
struct ControlEventStreamTests {
    @Test("a subscriber gets every published line in order, and the stream ends when the server stops")
    func linesInOrder() throws {
        let tree = try TempTree(prefix: "qw-events")
        let socket = tree.absoluteBytes("run/control.sock")
        let server = try ControlServer(socketPath: socket) { _, reply in reply.fail("no engine here") }
        server.start()
        let stream = try ControlEventStream(socketPath: socket, timeout: .seconds(10))
        defer { stream.release() }
        // The greeting came back only once the subscription existed.
        #expect(server.events.hasSubscribers)
        for index in 0..<100 { server.events.publish(#"{"event":"overflow","n":\#(index)}"#) }
        for index in 0..<100 {
            let line = try #require(stream.nextLine())
            #expect(String(decoding: line, as: UTF8.self) == #"{"event":"overflow","n":\#(index)}"#)
        }
        server.stop()
        #expect(stream.nextLine() == nil)
    }

    @Test("a subscriber that falls behind loses its oldest lines and is told how many")
    func slowSubscriberDropsOldest() {
        let feed = ControlEventFeed(capacity: 4)
        let subscription = feed.subscribe()
        for index in 0..<10 { feed.publish("line \(index)") }
        let lines = subscription.next(timeout: .seconds(10))
        #expect(lines == [#"{"count":6,"event":"dropped"}"#, "line 6", "line 7", "line 8", "line 9"])
        feed.publish("line 10")
        #expect(subscription.next(timeout: .seconds(10)) == ["line 10"])
        feed.unsubscribe(subscription)
        #expect(!feed.hasSubscribers)
        subscription.close()
        #expect(subscription.next(timeout: .seconds(10)) == nil)
    }

    @Test("publishing to a subscriber that never reads costs the publisher a bounded queue")
    func publisherNeverWaits() throws {
        let tree = try TempTree(prefix: "qw-events")
        let socket = tree.absoluteBytes("run/control.sock")
        var options = ControlServer.Options()
        options.eventCapacity = 16
        let server = try ControlServer(socketPath: socket, options: options) { _, reply in reply.fail("none") }
        server.start()
        defer { server.stop() }
        let stream = try ControlEventStream(socketPath: socket, timeout: .seconds(10))
        defer {
            stream.close()
            stream.release()
        }
        // 200 000 lines of 1 KB never read: far more than the socket buffers hold, so the
        // connection's thread blocks in send while the publisher keeps going.
        let line = #"{"event":"overflow","pad":""# + String(repeating: "x", count: 1000) + #""}"#
        let start = ContinuousClock.now
        for _ in 0..<200_000 { server.events.publish(line) }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(20), "publishing took \(elapsed)")
        // The client, reading at last, is told that lines were dropped.
        var sawDropped = false
        for _ in 0..<1_000 {
            guard let next = stream.nextLine() else { break }
            if String(decoding: next, as: UTF8.self).contains(#""event":"dropped""#) {
                sawDropped = true
                break
            }
        }
        #expect(sawDropped)
    }

    @Test("events is a command of the protocol with no fields")
    func protocolShape() throws {
        #expect(ControlRequest(.events).encodedLine() == Array(#"{"command":"events"}"#.utf8) + [0x0a])
        let decoded = ControlProtocol.decodeRequest(Array(#"{"command":"events"}"#.utf8))
        #expect(try decoded.get() == ControlRequest(.events))
        guard case .failure(let failure) = ControlProtocol.decodeRequest(Array(#"{"command":"events","x":1}"#.utf8))
        else {
            Issue.record("an unknown field was accepted")
            return
        }
        #expect(failure.description.contains("'x'"))
    }
}
