import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Clients of the control socket that never finish, trickle, or subscribe and idle, played
/// with raw sockets against a real daemon: `status` must still be answered, and exactly.
@Suite("control socket under slow and idle clients")
struct ControlSocketAttackTests {
    private let root = LiveFixture.root

    @Test("40 silent, 32 trickling and 32 subscribed clients at once: status --sync is still answered, exactly")
    func silentTricklingAndSubscribed() throws {
        let fixture = try LiveFixture()
        try fillTree(fixture, directories: 8)
        let daemon = try fixture.start()
        let socket = fixture.socketPath

        let silent = try (0..<40).map { _ in try RawSocket.unix(socket) }
        for client in silent { try client.send(Array(#"{"command":"status""#.utf8)) }
        let subscribers = try (0..<32).map { _ in try RawSocket.unix(socket) }
        for subscriber in subscribers {
            try subscriber.send(Array(#"{"command":"events"}"#.utf8) + [0x0A])
            let greeting = try subscriber.receiveLine()
            #expect(String(decoding: greeting.line, as: UTF8.self).contains(#""event":"subscribed""#))
        }
        let tricklers = try (0..<32).map { _ in try RawSocket.unix(socket) }
        for trickler in tricklers { try trickler.send(Array("{".utf8)) }

        try writeMore(fixture, round: 1)
        try fixture.expectLiveMatchesScan("with 104 slow and idle clients connected", du: true)

        // Trickling one byte every 2 s does not keep a connection past the request time:
        // each trickler is answered with an error and closed within a bounded number of bytes.
        let answers = Answers()
        let group = DispatchGroup()
        for (index, trickler) in tricklers.enumerated() {
            group.enter()
            Thread {
                defer { group.leave() }
                answers.record(index, Self.trickle(trickler, bytes: 10, every: 2))
            }.start()
        }
        try fixture.expectLiveMatchesScan("while they trickle", du: true)
        group.wait()
        for index in tricklers.indices {
            let answer = answers.answer(index)
            #expect(
                answer?.contains("was not complete within 5s of connecting") == true,
                "trickler \(index) got \(answer ?? "no answer within 10 bytes")")
        }
        for client in silent {
            let reply = try client.receiveLine()
            #expect(String(decoding: reply.line, as: UTF8.self).contains("was not complete within 5s"))
        }

        try writeMore(fixture, round: 2)
        try fixture.expectLiveMatchesScan("after the tricklers were closed", du: true)
        #expect(try daemon.stop(SIGTERM).exitStatus == 0)
        for subscriber in subscribers {
            // The daemon stopped: every stream ends, so reading to the end cannot hang.
            _ = try subscriber.receiveToEnd()
        }
    }

    @Test("more idle clients and subscribers than the limits: the oldest idle are evicted, status is answered")
    func beyondTheLimits() throws {
        let fixture = try LiveFixture()
        try fillTree(fixture, directories: 4)
        _ = try fixture.start()
        let socket = fixture.socketPath

        // 200 connections that never send anything, far past the 128 served at once.
        let silent = try (0..<200).map { _ in try RawSocket.unix(socket) }
        // 40 subscribers, past the 32 streams: the last 8 are refused with the limit named.
        var refused: [String] = []
        var subscribed: [RawSocket] = []
        for _ in 0..<40 {
            let subscriber = try RawSocket.unix(socket)
            try subscriber.send(Array(#"{"command":"events"}"#.utf8) + [0x0A])
            let first = String(decoding: try subscriber.receiveLine().line, as: UTF8.self)
            if first.contains(#""event":"subscribed""#) {
                subscribed.append(subscriber)
            } else {
                refused.append(first)
            }
        }
        #expect(subscribed.count == 32)
        #expect(refused.count == 8)
        for message in refused { #expect(message.contains("already streams events to 32 clients"), "\(message)") }

        try writeMore(fixture, round: 1)
        try fixture.expectLiveMatchesScan("with 200 silent clients and 40 subscribers", du: true)
        // The oldest silent ones made room, each told why.
        let evicted = try silent.prefix(10).map { String(decoding: try $0.receiveLine().line, as: UTF8.self) }
        for message in evicted { #expect(message.contains("other connections were open"), "\(message)") }
        try fixture.stopCleanly()
    }

    // MARK: Helpers

    private func fillTree(_ fixture: LiveFixture, directories: Int) throws {
        for index in 0..<directories {
            try fixture.tree.makeDirectories(root / "d\(index)" / "inner")
            try fixture.tree.writeFile(root / "d\(index)" / "file", byteCount: 3_000 * (index + 1))
            try fixture.tree.writeFile(root / "d\(index)" / "inner" / "file", byteCount: 70_000)
        }
    }

    private func writeMore(_ fixture: LiveFixture, round: Int) throws {
        try fixture.tree.makeDirectories(root / "round\(round)" / "a")
        try fixture.tree.writeFile(root / "round\(round)" / "a" / "new", byteCount: 45_000 * round)
        try fixture.tree.writeFile(root / "d0" / "more-\(round)", byteCount: 9_000)
    }

    /// Sends one byte every `every` seconds, up to `bytes` of them, until the daemon answers;
    /// returns its answer, or nil if it kept listening to every byte.
    private static func trickle(_ client: RawSocket, bytes: Int, every seconds: UInt32) -> String? {
        for _ in 0..<bytes {
            // The pause is the attack itself (a slow client), not a wait for the daemon.
            sleep(seconds)
            guard let sent = client.sendWithoutWaiting(Array(" ".utf8)), sent == 1 else { break }
        }
        guard let reply = try? client.receiveLine(), !reply.line.isEmpty else { return nil }
        return String(decoding: reply.line, as: UTF8.self)
    }
}

/// What each trickling client was answered, from their threads.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Int: String] = [:]

    func record(_ index: Int, _ answer: String?) {
        lock.lock()
        defer { lock.unlock() }
        answers[index] = answer
    }

    func answer(_ index: Int) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return answers[index]
    }
}
