import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Registered cleaners that ask for more than they read: every bad line, every stale reply
/// gets an error line back, so a client that floods and does not read would grow the daemon's
/// memory without end. The daemon's RSS must stay bounded and the client be dropped.
@Suite("control connections' output is bounded")
struct ControlOutputBoundLiveTests {
    enum Hostile: String, CaseIterable, CustomStringConvertible {
        /// Bad commands, never a byte read.
        case floodsNeverReads = "bad commands, never reads"
        /// Bad commands, 64 KiB read every 100 ms.
        case readsSlowly = "bad commands, reads 64 KiB every 100 ms"
        /// Replies to a context that is not waiting, never a byte read.
        case staleReplies = "stale replies, never reads"

        var description: String { rawValue }

        var line: String {
            switch self {
            case .floodsNeverReads, .readsSlowly: return #"{"command":"bogus"}"# + "\n"
            case .staleReplies: return #"{"context":99999,"freed":0,"removed":[]}"# + "\n"
            }
        }
    }

    /// Above the daemon's resident size before the client came. The bound on a connection's
    /// output is 4 MiB; before it, these clients took the daemon from 31 MB to 88-190 MB in 20 s.
    static let allowedGrowthKiB = 48 * 1024
    static let floodLimit: Duration = .seconds(20)

    @Test(
        "a registered cleaner that floods and does not read is dropped, and RSS stays bounded",
        arguments: Hostile.allCases)
    func hostileCleaner(_ hostile: Hostile) throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(LiveFixture.root / "Caches" / "feed")
        let daemon = try fixture.start(options: ["--clean"])
        let before = try Self.residentKiB(daemon.processID)

        let socket = try RawSocket.unix(fixture.socketPath, timeoutSeconds: 5)
        try socket.send(
            Array(#"{"command":"register_cleaner","name":"hostile","paths":["Caches/feed"]}"#.utf8) + [0x0A])
        let batch = Array(String(repeating: hostile.line, count: 1000).utf8)
        var peak = before
        var dropped = false
        var lastRead = ContinuousClock.now
        var scratch = [UInt8](repeating: 0, count: 65_536)
        let start = ContinuousClock.now
        while ContinuousClock.now - start < Self.floodLimit {
            guard let sent = socket.sendWithoutWaiting(batch) else {
                dropped = true
                break
            }
            peak = max(peak, try Self.residentKiB(daemon.processID))
            if hostile == .readsSlowly, ContinuousClock.now - lastRead >= .milliseconds(100) {
                lastRead = ContinuousClock.now
                let count = scratch.withUnsafeMutableBytes {
                    recv(socket.descriptor, $0.baseAddress, $0.count, CInt(MSG_DONTWAIT))
                }
                if count == 0 {
                    dropped = true
                    break
                }
            }
            if sent == 0 {
                // The daemon is not reading just now: wait for room, not for a set time.
                var request = pollfd(fd: socket.descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&request, 1, 20)
            }
        }
        let elapsed = ContinuousClock.now - start
        print(
            "\(hostile): RSS \(before) KiB before, peak \(peak) KiB (+\(peak - before) KiB), "
                + "dropped \(dropped) after \(elapsed)")
        #expect(dropped, "the daemon kept the client that \(hostile) for \(Self.floodLimit)")
        #expect(
            peak - before < Self.allowedGrowthKiB,
            "the daemon's RSS grew from \(before) KiB to \(peak) KiB under a client that \(hostile)")
        try daemon.waitForStandardError(containing: "the registered cleaner 'hostile' was dropped")
        // Everyone else is still answered.
        _ = try daemon.status()
    }

    /// VmRSS of `processID`, in KiB.
    static func residentKiB(_ processID: pid_t) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(processID)/status", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw DaemonError("no VmRSS in /proc/\(processID)/status") }
        return kib
    }
}
