import Foundation
import Glibc
import QuotaWatchTestSupport
import Synchronization
import Testing

/// Clients of the metrics port that hold connections without finishing a request, played
/// with raw sockets on loopback against a real daemon: a scrape must still be answered, with
/// the daemon's numbers. Every attacker is a bounded loop that also stops when told.
@Suite("metrics port under half-sent and idle connections")
struct MetricsAttackTests {
    private let root = LiveFixture.root

    /// Why 127.0.0.2 cannot be used as a second loopback source here, or nil.
    static let secondLoopbackUnavailable: String? = {
        do {
            let probe = try RawSocket.tcp(host: "127.0.0.1", port: 9, from: "127.0.0.2", timeoutSeconds: 1)
            probe.close()
            return nil
        } catch let error as SystemCallError where error.call == "bind" {
            return "cannot bind 127.0.0.2: \(error)"
        } catch {
            return nil  // bound, and refused by port 9: good enough
        }
    }()

    @Test("50 half-sent requests kept alive by a byte every 2 s: scrapes are still answered")
    func halfSentRequests() throws {
        let (fixture, port) = try startDaemon()
        let daemon = try fixture.running
        let attack = Attack()
        let finished = attack.launch(count: 50) { _ in
            let client = try RawSocket.tcp(host: "127.0.0.1", port: port)
            try client.send(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n".utf8))
            // At most 30 bytes, 2 s apart: the attack ends by itself.
            for _ in 0..<30 where !attack.isOver {
                try attack.pause(seconds: 2)
                guard client.sendWithoutWaiting(Array("X".utf8)) == 1 else { return }
            }
        }
        try attack.waitUntilConnected(50)
        try expectScrape(port: port, daemon: daemon, context: "with 50 half-sent requests")
        attack.end()
        finished.wait()
        #expect(try daemon.stop(SIGTERM).exitStatus == 0)
    }

    @Test("40 idle connections renewed every 9 s: scrapes are still answered")
    func idleConnections() throws {
        let (fixture, port) = try startDaemon()
        let daemon = try fixture.running
        let attack = Attack()
        let finished = attack.launch(count: 40) { _ in
            // At most 4 rounds: connect, say nothing, reconnect after 9 s.
            for _ in 0..<4 where !attack.isOver {
                let client = try RawSocket.tcp(host: "127.0.0.1", port: port)
                try attack.pause(seconds: 9)
                client.close()
            }
        }
        try attack.waitUntilConnected(40)
        try expectScrape(port: port, daemon: daemon, context: "with 40 idle connections")
        attack.end()
        finished.wait()
        #expect(try daemon.stop(SIGTERM).exitStatus == 0)
    }

    @Test(
        "100 half-sent requests from one other address: it gets at most its share, scrapes are answered",
        .enabled(if: secondLoopbackUnavailable == nil, "needs 127.0.0.2 as a loopback source address"))
    func oneAddressTakesItsShare() throws {
        let (fixture, port) = try startDaemon()
        let daemon = try fixture.running
        let attack = Attack()
        let finished = attack.launch(count: 100) { _ in
            let client = try RawSocket.tcp(host: "127.0.0.1", port: port, from: "127.0.0.2")
            try client.send(Array("GET /metrics HTTP/1.1\r\n".utf8))
            for _ in 0..<30 where !attack.isOver {
                try attack.pause(seconds: 2)
                guard client.sendWithoutWaiting(Array("X".utf8)) == 1 else { return }
            }
        }
        try attack.waitUntilConnected(100)
        try expectScrape(port: port, daemon: daemon, context: "with 100 half-sent requests from 127.0.0.2")
        attack.end()
        finished.wait()
        #expect(try daemon.stop(SIGTERM).exitStatus == 0)
    }

    @Test(
        "64 half-sent requests from each of 127.0.0.2 and 127.0.0.3: a scrape from 127.0.0.1 is answered within 2 s",
        .enabled(if: secondLoopbackUnavailable == nil, "needs 127.0.0.2 and 127.0.0.3 as loopback source addresses"))
    func twoAddressesCannotFillTheSlots() throws {
        let (fixture, port) = try startDaemon()
        let daemon = try fixture.running
        let attack = Attack()
        let finished = attack.launch(count: 128) { index in
            let source = index % 2 == 0 ? "127.0.0.2" : "127.0.0.3"
            let client = try RawSocket.tcp(host: "127.0.0.1", port: port, from: source)
            try client.send(Array("GET /metrics HTTP/1.1\r\n".utf8))
            for _ in 0..<30 where !attack.isOver {
                try attack.pause(seconds: 1)
                guard client.sendWithoutWaiting(Array("X".utf8)) == 1 else { return }
            }
        }
        try attack.waitUntilConnected(128)
        let status = try daemon.syncStatus()
        let clock = ContinuousClock()
        let started = clock.now
        let response = try? HTTPGet.request(port: port, path: "/metrics", timeoutSeconds: 2)
        let elapsed = clock.now - started
        print("a scrape under 128 half-sent requests from two addresses took \(elapsed)")
        #expect(response?.status == 200, "no answer within 2 s (\(elapsed)): \(String(describing: response))")
        #expect(elapsed < .seconds(2))
        if let response {
            let metrics = try PrometheusExposition(response.text)
            let rootRow = try #require(status.report.directoriesByPath["."])
            #expect(metrics.value("quotawatch_root_allocated_bytes") == Double(rootRow.allocated))
        }
        attack.end()
        finished.wait()
        #expect(try daemon.stop(SIGTERM).exitStatus == 0)
    }

    // MARK: Helpers

    private func startDaemon() throws -> (LiveFixture, Int) {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(root / "a")
        try fixture.tree.writeFile(root / "a" / "file", byteCount: 77_000)
        let daemon = try fixture.start(options: ["--metrics-listen", "127.0.0.1:0"])
        try daemon.waitForStandardError(containing: "/metrics\n")
        let pattern = try NSRegularExpression(pattern: #"metrics at http://[^ ]*:([0-9]+)/metrics"#)
        let text = daemon.errorText
        guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text), let port = Int(text[range])
        else { throw DaemonError("no metrics port on stderr", daemon: daemon) }
        return (fixture, port)
    }

    /// A scrape is answered with the daemon's own root total, within half of Prometheus's
    /// default 10 s scrape timeout: the attacks held a scrape for as long as they were renewed
    /// (9 s at least), so a bound is what tells an answer from one the attack let through.
    private func expectScrape(port: Int, daemon: Daemon, context: String) throws {
        let status = try daemon.syncStatus()
        let response = try HTTPGet.request(port: port, path: "/metrics", timeoutSeconds: 5)
        #expect(response.status == 200, "\(context): \(response)")
        let metrics = try PrometheusExposition(response.text)
        #expect(metrics.value("quotawatch_ready") == 1, "\(context)")
        let rootRow = try #require(status.report.directoriesByPath["."])
        #expect(metrics.value("quotawatch_root_allocated_bytes") == Double(rootRow.allocated), "\(context)")
    }
}

/// Attacking clients on threads of their own, each a bounded loop that also ends when the
/// test says the attack is over.
private final class Attack: Sendable {
    private let over = Atomic<Bool>(false)
    private let connections = DispatchSemaphore(value: 0)
    private let wakeUp = DispatchSemaphore(value: 0)

    var isOver: Bool { over.load(ordering: .acquiring) }

    /// Starts `count` attackers; the group is left when every one has returned.
    func launch(count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    try body(index)
                } catch {}
            }.start()
        }
        return group
    }

    /// Called by an attacker once its connection is made: it pauses for `seconds` (the
    /// attack's own rhythm, not a wait for the daemon), cut short when the attack ends.
    func pause(seconds: Int) throws {
        connections.signal()
        _ = wakeUp.wait(timeout: .now() + .seconds(seconds))
        // Passed on, so that every attacker still pausing wakes too.
        if isOver { wakeUp.signal() }
    }

    /// Waits until attackers have made `count` connections (at most a minute).
    func waitUntilConnected(_ count: Int) throws {
        for made in 0..<count {
            guard connections.wait(timeout: .now() + .seconds(60)) == .success else {
                throw DaemonError("only \(made) of \(count) attackers connected within a minute")
            }
        }
    }

    func end() {
        over.store(true, ordering: .releasing)
        wakeUp.signal()
    }
}
