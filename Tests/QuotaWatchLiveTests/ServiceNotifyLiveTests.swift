import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `run` under systemd's notify protocol: the daemon is started with `NOTIFY_SOCKET` naming a
/// datagram socket this test binds, as a service manager would, and every message is checked.
@Suite("systemd notify protocol from the live daemon")
struct ServiceNotifyLiveTests {
    private let root = LiveFixture.root
    private let configPath: TreePath = "outside/quotawatch.yaml"

    private func wrapper(_ listener: NotifyListener, watchdogMicroseconds: Int? = nil) -> [String] {
        ["/usr/bin/env", "NOTIFY_SOCKET=\(listener.path)"]
            + (watchdogMicroseconds.map { ["WATCHDOG_USEC=\($0)"] } ?? [])
    }

    /// STATUS= describes one root only when the service serves one (ServiceNotifierGroupTests
    /// covers several): the first two tests start their daemon on its root alone.
    private static let oneRootsStatus = "STATUS= and READY=1 tell of the one root a service serves"

    private func statuses(_ messages: [String]) -> [String] {
        messages.flatMap(NotifyListener.lines).filter { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst(7)) }
    }

    @Test(
        "READY=1 after the crawl, STATUS= as it changes, RELOADING=1/READY=1 around SIGHUP, watchdog pings, STOPPING=1")
    func fullProtocol() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectory(root / "a")
        for name in ["x", "y", "z"] { try tree.writeFile(root / "a" / name, byteCount: 100) }
        try tree.writeFile(configPath, contents: Array("quotas:\n  - {path: 'a', limit: 20KB}\n".utf8))
        let listener = try NotifyListener(path: tree.absolutePath("run/notify.sock"))
        let daemon = try fixture.start(
            options: ["--config", tree.absolutePath(configPath)],
            wrapper: wrapper(listener, watchdogMicroseconds: 200_000), alone: Self.oneRootsStatus)

        var messages = try listener.wait(for: "READY=1") { NotifyListener.index(of: "READY=1", in: $0) != nil }
        #expect(NotifyListener.lines(messages[0]).contains("READY=1"), "READY=1 is not the first message: \(messages)")
        let readyStatus = NotifyListener.lastValue(of: "STATUS", in: [messages[0]]) ?? ""
        #expect(readyStatus.hasPrefix("3 files, 2 directories, "), "\(readyStatus)")
        #expect(readyStatus.contains("; level normal; 0 quota directories in breach"), "\(readyStatus)")

        // WATCHDOG_USEC=200000: a ping every 100 ms from the engine's turn.
        try listener.wait(for: "three WATCHDOG=1") { messages in
            messages.filter { NotifyListener.lines($0).contains("WATCHDOG=1") }.count >= 3
        }

        try tree.writeFile(root / "a" / "big", byteCount: 50_000)
        messages = try listener.wait(for: "a STATUS= with the breach") { messages in
            let status = NotifyListener.lastValue(of: "STATUS", in: messages) ?? ""
            return status.hasPrefix("4 files, ") && status.contains("1 quota directory in breach")
        }

        let beforeReload = messages.count
        daemon.send(SIGHUP)
        messages = try listener.wait(for: "RELOADING=1, then READY=1") { messages in
            guard let reloading = NotifyListener.index(of: "RELOADING=1", in: messages, from: beforeReload) else {
                return false
            }
            return NotifyListener.index(of: "READY=1", in: messages, from: reloading + 1) != nil
        }
        let reloading = NotifyListener.index(of: "RELOADING=1", in: messages, from: beforeReload)!
        let stamp = NotifyListener.lastValue(of: "MONOTONIC_USEC", in: [messages[reloading]])
        #expect(stamp.flatMap(UInt64.init) != nil, "RELOADING=1 without MONOTONIC_USEC: \(messages[reloading])")

        let exit = try daemon.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "\(exit)")
        messages = try listener.wait(for: "STOPPING=1") { NotifyListener.index(of: "STOPPING=1", in: $0) != nil }
        #expect(messages.last == "STOPPING=1", "STOPPING=1 is not the last message: \(messages)")
        let sent = statuses(messages)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0 != $1 }, "a STATUS= repeated unchanged: \(sent)")
    }

    @Test("without WATCHDOG_USEC no pings; a STATUS= only when the line changed")
    func noWatchdog() throws {
        let fixture = try LiveFixture()
        let listener = try NotifyListener(path: fixture.tree.absolutePath("run/notify.sock"))
        let daemon = try fixture.start(wrapper: wrapper(listener), alone: Self.oneRootsStatus)
        try listener.wait(for: "READY=1") { NotifyListener.index(of: "READY=1", in: $0) != nil }
        try fixture.tree.writeFile(root / "f", byteCount: 10)
        // At least a second passes before the changed line is sent: time for pings, if any.
        try listener.wait(for: "a STATUS= with the new file") { messages in
            (NotifyListener.lastValue(of: "STATUS", in: messages) ?? "").hasPrefix("1 file, ")
        }
        _ = try daemon.stop(SIGTERM)
        let messages = try listener.wait(for: "STOPPING=1") {
            NotifyListener.index(of: "STOPPING=1", in: $0) != nil
        }
        #expect(!messages.contains { NotifyListener.lines($0).contains("WATCHDOG=1") }, "\(messages)")
        let sent = statuses(messages)
        #expect(sent.count == 2 && sent[0] != sent[1], "\(sent)")
    }

    @Test("a manager that never reads blocks the sender, never the engine: status --sync answers, SIGTERM stops it")
    func managerThatNeverReads() throws {
        let fixture = try LiveFixture()
        let listener = try NotifyListener(path: fixture.tree.absolutePath("run/notify.sock"), reading: false)
        // A ping every millisecond fills the socket's queue (net.unix.max_dgram_qlen) at once.
        let daemon = try fixture.start(wrapper: wrapper(listener, watchdogMicroseconds: 2000))
        // Nothing to wait on: the kernel shows the blocked send only in the thread's wchan.
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        var blocked = false
        while !blocked && ContinuousClock.now < deadline {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.processID)/task")) ?? []
            blocked = tasks.contains { task in
                let wchan = try? String(contentsOfFile: "/proc/\(daemon.processID)/task/\(task)/wchan", encoding: .utf8)
                return wchan == "unix_wait_for_peer"
            }
        }
        #expect(blocked, "no thread of the daemon ever waited in unix_wait_for_peer")
        try fixture.tree.writeFile(root / "written", byteCount: 5000)
        let status = try daemon.status(sync: true, timeoutSeconds: 10)
        #expect(status.report.directories.first { $0.path == "." }?.files == 1, "\(status)")
        let exit = try daemon.stop(SIGTERM)
        #expect(exit.exitStatus == 0, "\(exit)")
    }
}
