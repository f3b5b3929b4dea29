import Foundation
import QuotaWatchPolicy
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

    @Test("events is a command of the protocol with one field, recent, 0 or more")
    func protocolShape() throws {
        #expect(ControlRequest(.events(recent: 0)).encodedLine() == Array(#"{"command":"events"}"#.utf8) + [0x0a])
        let decoded = ControlProtocol.decodeRequest(Array(#"{"command":"events"}"#.utf8))
        #expect(try decoded.get() == ControlRequest(.events(recent: 0)))
        let recent = ControlProtocol.decodeRequest(Array(#"{"command":"events","recent":200}"#.utf8))
        #expect(try recent.get() == ControlRequest(.events(recent: 200)))
        for (line, named) in [
            (#"{"command":"events","x":1}"#, "'x'"), (#"{"command":"events","recent":-1}"#, "'recent'"),
        ] {
            guard case .failure(let failure) = ControlProtocol.decodeRequest(Array(line.utf8)) else {
                Issue.record("\(line) was accepted")
                continue
            }
            #expect(failure.description.contains(named), "\(failure)")
        }
    }

    @Test("the feed remembers its newest lines for a later subscriber, within a count and a size")
    func remembersNewestLines() {
        let feed = ControlEventFeed(capacity: 16, recentCapacity: 3)
        for index in 0..<5 { feed.publish("line \(index)") }
        feed.publish("progress", remembering: nil)
        feed.publish(#"{"event":"ready"}"#, remembering: #"{"event":"ready","time":"t"}"#)
        #expect(feed.recentLines == ["line 3", "line 4", #"{"event":"ready","time":"t"}"#])
        let (_, two) = feed.subscribe(recent: 2)
        #expect(two == ["line 4", #"{"event":"ready","time":"t"}"#])
        #expect(feed.subscribe(recent: 0).recent.isEmpty)
        // A cleanup's line lists its paths: the lines remembered stay under a size too.
        let large = String(repeating: "x", count: ControlEventFeed.recentBytes / 2)
        let sized = ControlEventFeed(capacity: 16)
        for _ in 0..<4 { sized.publish(large) }
        sized.publish("small")
        #expect(sized.recentLines == [large, "small"])
    }

    @Test("a subscriber's recent lines and its live ones are every line once, in order, while a publisher goes on")
    func recentThenLiveExactlyOnce() async throws {
        for round in 0..<20 {
            let feed = ControlEventFeed(capacity: 100_000, recentCapacity: 100_000)
            let total = 20_000
            let publisher = Task.detached {
                for index in 0..<total { feed.publish("\(index)") }
            }
            // Somewhere in the middle of the publishing.
            while feed.recentLines.count < (round + 1) * 500 { await Task.yield() }
            let (subscription, recent) = feed.subscribe(recent: 100_000)
            await publisher.value
            let live = subscription.take() ?? []
            let seen = (recent + live).compactMap(Int.init)
            #expect(seen == Array(0..<total), "round \(round): \(recent.count) recent, \(live.count) live")
        }
    }

    @Test("a stream asking for recent events gets them after the greeting, then the live ones")
    func streamWithRecent() throws {
        let tree = try TempTree(prefix: "qw-events")
        let socket = tree.absoluteBytes("run/control.sock")
        let server = try ControlServer(socketPath: socket) { _, reply in reply.fail("no engine here") }
        server.start()
        defer { server.stop() }
        for index in 0..<3 { server.events.publish(#"{"event":"overflow","n":\#(index)}"#) }
        let stream = try ControlEventStream(socketPath: socket, timeout: .seconds(10), recent: 2)
        defer {
            stream.close()
            stream.release()
        }
        #expect(String(decoding: stream.greeting, as: UTF8.self).contains(#""recent":2"#))
        #expect(
            stream.recentLines.map { String(decoding: $0, as: UTF8.self) } == [
                #"{"event":"overflow","n":1}"#, #"{"event":"overflow","n":2}"#,
            ])
        server.events.publish(#"{"event":"overflow","n":3}"#)
        #expect(stream.nextLine().map { String(decoding: $0, as: UTF8.self) } == #"{"event":"overflow","n":3}"#)
        // Without asking, the stream starts with the next event, its greeting as it always was.
        let plain = try ControlEventStream(socketPath: socket, timeout: .seconds(10))
        defer {
            plain.close()
            plain.release()
        }
        #expect(plain.recentLines.isEmpty)
        #expect(!String(decoding: plain.greeting, as: UTF8.self).contains("recent"))
    }

    @Test("the line remembered: none for a cleanup's progress, and dated when the event has no time")
    func rememberedLines() {
        let ready = ObservedEvent.engine(
            .ready(directories: 1, files: 2, allocated: 3, seconds: 0.5, backend: "inotify", backendReason: "r"))
        let line = ready.jsonLine(root: "/r")
        let remembered = ready.rememberedLine(line, root: "/r") { WallTime(millisecondsSinceEpoch: 0) }
        #expect(!line.contains("time"))
        #expect(remembered?.contains(#""time":"1970-01-01T00:00:00.000Z""#) == true, "\(remembered ?? "nil")")
        let reloaded = ObservedEvent.engine(.configReloaded(quotas: 1, budgets: 0, time: "T"))
        let reloadedLine = reloaded.jsonLine(root: "/r")
        #expect(
            reloaded.rememberedLine(reloadedLine, root: "/r") { WallTime(millisecondsSinceEpoch: 0) } == reloadedLine)
    }
}
