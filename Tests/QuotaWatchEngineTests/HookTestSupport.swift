import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport

/// An event as the policy would hand it to the runner, with a path and a byte count.
func hookEvent(_ kind: String, path: String?, allocated: Int = 0) -> HookEvent {
    var json = #"{"event":"\#(kind)""#
    var environment = [(name: "QUOTAWATCH_EVENT", value: kind)]
    if let path {
        json += #","path":"\#(path)""#
        environment.append((name: "QUOTAWATCH_PATH", value: path))
    }
    json += #","allocated":\#(allocated)}"#
    environment.append((name: "QUOTAWATCH_ALLOCATED", value: String(allocated)))
    return HookEvent(kind: kind, path: path.map { Array($0.utf8) }, json: Array(json.utf8), environment: environment)
}

/// Collects what a runner reports, and waits for it: every wait has a deadline and fails with
/// what arrived so far.
final class HookReports: Sendable {
    private struct Reported {
        var runs: [HookRunner.Run] = []
        var failures: [HookFailure] = []
    }

    private let reported = BlockingState(Reported())

    var onFailure: @Sendable (HookFailure) -> Void {
        { [reported] failure in reported.withLockWakingWaiters { $0.failures.append(failure) } }
    }

    var onRun: @Sendable (HookRunner.Run) -> Void {
        { [reported] run in reported.withLockWakingWaiters { $0.runs.append(run) } }
    }

    var snapshot: (runs: Int, failures: Int) {
        let counts = reported.withLock { [$0.runs.count, $0.failures.count] }
        return (counts[0], counts[1])
    }

    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    /// Waits until `count` runs have finished; returns all of them, in order.
    func waitForRuns(_ count: Int, timeout: Duration = .seconds(30)) throws -> [HookRunner.Run] {
        try waitFor(timeout, what: "\(count) runs") { $0.runs.count >= count ? $0.runs : nil }
    }

    func waitForFailures(_ count: Int, timeout: Duration = .seconds(30)) throws -> [HookFailure] {
        try waitFor(timeout, what: "\(count) failures") { $0.failures.count >= count ? $0.failures : nil }
    }

    private func waitFor<Value: Sendable>(
        _ timeout: Duration, what: String, _ ready: (Reported) -> Value?
    ) throws -> Value {
        if let value = reported.wait(until: .now + timeout, { ready($0) }) { return value }
        let (runs, failures) = reported.withLock { state in
            (state.runs.map { "\($0.event.kind)" }, state.failures.map(\.summary))
        }
        throw Timeout(description: "no \(what) within \(timeout); runs: \(runs), failures: \(failures)")
    }
}

/// The rate limit's clock, moved by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var instant = Moment(sinceOrigin: .zero)

    var now: @Sendable () -> Moment {
        { [self] in
            lock.lock()
            defer { lock.unlock() }
            return instant
        }
    }

    func advance(by duration: Duration) {
        lock.lock()
        instant += duration
        lock.unlock()
    }
}

/// Two named pipes that let a test see each hook run start and decide when it ends. The hook
/// command it gives writes "start PATH" to one, waits for a line on the other, then writes
/// "end PATH". The test holds both open for reading and writing, so no open ever blocks.
final class HookGate {
    let tree: TempTree
    private let reports: Int32
    private let release: Int32
    private var pending: [UInt8] = []

    init() throws {
        tree = try TempTree(prefix: "quotawatch-hooks")
        try tree.makeFIFO("reports")
        try tree.makeFIFO("release")
        reports = Glibc.open(tree.absolutePath("reports"), O_RDWR | O_CLOEXEC | O_NONBLOCK)
        release = Glibc.open(tree.absolutePath("release"), O_RDWR | O_CLOEXEC)
        guard reports >= 0, release >= 0 else { throw Errno(rawValue: errno) }
    }

    deinit {
        close(reports)
        close(release)
    }

    /// The hook's argv.
    var command: [[UInt8]] {
        let script =
            #"cat >/dev/null; echo "start $QUOTAWATCH_PATH" >"$1"; read line <"$2"; echo "end $QUOTAWATCH_PATH" >"$1""#
        return ["sh", "-c", script, "sh", tree.absolutePath("reports"), tree.absolutePath("release")].map {
            Array($0.utf8)
        }
    }

    /// Lets the run that is waiting (or the next one to wait) finish.
    func letOneRunEnd() {
        _ = write(release, "\n", 1)
    }

    /// The next line a run wrote, waiting for it at most `timeout`.
    func nextLine(timeout: Duration = .seconds(30)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeFirst(newline + 1)
                return line
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw HookReports.Timeout(description: "no line from the hook within \(timeout)")
            }
            let milliseconds = Int32(remaining.components.seconds * 1000 + 1)
            _ = try Readiness.wait(for: [FileDescriptor(rawValue: reports)], timeoutMilliseconds: milliseconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(reports, &buffer, buffer.count)
            if count > 0 { pending += buffer[..<count] }
        }
    }
}
