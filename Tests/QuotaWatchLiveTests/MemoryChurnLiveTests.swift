import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// The daemon's own memory under churn of names that never repeat, as a download or hashed
/// cache makes them: once the tree is as it was, so must RssAnon be, within noise.
@Suite("daemon memory under unique-name churn")
struct MemoryChurnLiveTests {
    /// Writes and deletes `count` files named `CFNetworkDownload_%08x.tmp` from `first` on.
    private func churn(in directory: String, from first: Int, count: Int) throws {
        let payload = [UInt8](repeating: 0x78, count: 100)
        for number in first..<first + count {
            let hex = String(number, radix: 16)
            let path =
                directory + "/CFNetworkDownload_" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex + ".tmp"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw SystemCallError("open", path, errno: errno) }
            let written = payload.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard written == payload.count else { throw SystemCallError("write", path, errno: errno) }
            guard unlink(path) == 0 else { throw SystemCallError("unlink", path, errno: errno) }
        }
    }

    /// RssAnon of the process from /proc/PID/status, in KiB: what it allocated, not its binary.
    private func anonymousKiB(of processID: pid_t) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(processID)/status", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
            let kib = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1])
        else { throw DaemonError("no RssAnon in /proc/\(processID)/status") }
        return kib
    }

    /// Before re-stat timers were dropped with their names, every name written in the last
    /// 35 s stayed: about 150 B each, 3 MiB for 20 000. The bound leaves room for the
    /// allocator's own swings (a few hundred KiB here) and nothing like that.
    /// `count` names from `first` on, in runs of 2 000 with a sync after each: a run's 8 000
    /// events fit in the kernel's queue of 16 384 however far behind the reader is (a debug
    /// build on a busy machine), so no overflow's resync can hide the growth. Returns the sync
    /// after the last run.
    private func churnInRuns(_ daemon: Daemon, in directory: String, from first: Int, count: Int) throws -> LiveStatus {
        var status = try daemon.syncStatus()
        for start in stride(from: first, to: first + count, by: 2_000) {
            try churn(in: directory, from: start, count: min(2_000, first + count - start))
            status = try daemon.syncStatus()
        }
        return status
    }

    @Test("20 000 unique names written and deleted leave RssAnon within 1 MiB of where it stood")
    func uniqueNamesLeaveNoMemoryBehind() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectory(LiveFixture.root / "tmp")
        let daemon = try fixture.start()
        let directory = fixture.tree.absolutePath(LiveFixture.root / "tmp")
        // A first round of the same size brings every table and buffer to its working size
        // (the reader's batches and the mailbox grow with the run): the second round's names
        // are all new.
        let warmed = try churnInRuns(daemon, in: directory, from: 0, count: 20_000)
        let before = try anonymousKiB(of: daemon.processID)
        let status = try churnInRuns(daemon, in: directory, from: 20_000, count: 20_000)
        #expect(
            status.engine.overflows == warmed.engine.overflows,
            "the queue overflowed (\(status.engine.overflows)): a resync would hide the growth")
        // The reader gives free heap back after a second without events (KernelEventReader's
        // quietMilliseconds): what stays past that, a leak per name would keep for good.
        var after = try anonymousKiB(of: daemon.processID)
        let deadline = ContinuousClock.now + .seconds(10)
        while after - before > 1_024 && ContinuousClock.now < deadline {
            try Task.checkCancellation()
            usleep(100_000)
            after = try anonymousKiB(of: daemon.processID)
        }
        #expect(after - before <= 1_024, "RssAnon went from \(before) KiB to \(after) KiB and stayed for 10 s")
        try fixture.expectLiveMatchesScan("after the churn")
    }
}
