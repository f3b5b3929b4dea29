import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@Suite("Hook runner, with real processes")
struct HookRunnerTests {
    private func bytes(_ arguments: [String]) -> [[UInt8]] { arguments.map { Array($0.utf8) } }

    @Test("the event arrives as one JSON line on stdin and as QUOTAWATCH_* variables beside PATH, HOME and LANG")
    func eventDelivery() throws {
        let tree = try TempTree(prefix: "quotawatch-hooks")
        let script = #"cat >"$1"; /usr/bin/env >"$2""#
        let hook = HookSpec(
            name: "capture",
            command: bytes(["sh", "-c", script, "sh", tree.absolutePath("stdin"), tree.absolutePath("env")]))
        let reports = HookReports()
        let environment = [
            (name: "PATH", value: "/usr/bin:/bin"), (name: "HOME", value: "/nonexistent-home"),
            (name: "LANG", value: "C.UTF-8"),
        ]
        let runner = try HookRunner(
            hooks: [hook], environment: environment, onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        let event = hookEvent("quota_breach", path: "Library/Caches/Feed", allocated: 1234)
        runner.submit(event)
        let runs = try reports.waitForRuns(1)
        #expect(runs.first?.failure == nil)

        #expect(try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("stdin"))) == Data(event.json + [0x0a]))
        let lines = Set(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("env"))), as: UTF8.self)
                .split(separator: "\n").map(String.init))
        let expected: Set = [
            "PATH=/usr/bin:/bin", "HOME=/nonexistent-home", "LANG=C.UTF-8", "QUOTAWATCH_EVENT=quota_breach",
            "QUOTAWATCH_PATH=Library/Caches/Feed", "QUOTAWATCH_ALLOCATED=1234",
            "QUOTAWATCH_PATH_RAW=Library/Caches/Feed",
        ]
        #expect(lines.isSuperset(of: expected))
        // Whatever else is there the shell added itself (PWD, SHLVL, _), never the daemon's.
        let added = lines.subtracting(expected).map { String($0.prefix { $0 != "=" }) }
        #expect(Set(added).isSubset(of: ["PWD", "SHLVL", "_", "OLDPWD"]), "unexpected: \(added)")
    }

    @Test("a hook that hangs is killed with its whole group after its timeout and reported with its stderr")
    func hangingHook() throws {
        let script = #"""
            sh -c 'trap "" TERM; exec sleep 600' &
            echo "hanging, grandchild $!" >&2
            wait
            """#
        let hook = HookSpec(name: "hangs", command: bytes(["sh", "-c", script]), timeout: .seconds(1))
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], killGrace: .milliseconds(300), onFailure: reports.onFailure)
        defer { runner.stop() }
        runner.submit(hookEvent("level", path: nil))
        let failure = try #require(try reports.waitForFailures(1).first)
        #expect(failure.hookName == "hangs")
        #expect(failure.eventKind == "level")
        #expect(failure.path == nil)
        #expect(failure.timedOut)
        #expect(failure.signal == SIGTERM)
        #expect(failure.exitStatus == nil)
        let stderr = String(decoding: failure.standardErrorTail, as: UTF8.self)
        #expect(stderr.hasPrefix("hanging, grandchild "))
        #expect(failure.summary.contains("timed out"))
        let grandchild = try #require(Int32(stderr.dropFirst("hanging, grandchild ".count).prefix { $0 != "\n" }))
        #expect(try ProcessWatch.waitForExit(of: grandchild, timeout: .seconds(10)))
    }

    @Test("a hook sees no descriptor of the daemon: ls /proc/self/fd shows 0, 1, 2 and its own")
    func noInheritedDescriptors() throws {
        let tree = try TempTree(prefix: "quotawatch-hooks")
        let leaked = open(tree.absolutePath("leaked"), O_WRONLY | O_CREAT, 0o600)  // deliberately no O_CLOEXEC
        defer { close(leaked) }
        let hook = HookSpec(
            name: "ls", command: bytes(["ls", "/proc/self/fd"]),
            standardOutput: .file(tree.absoluteBytes("fds")))
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        runner.submit(hookEvent("leftover", path: "tmp/CFNetworkDownload_1.tmp"))
        #expect(try reports.waitForRuns(1).first?.failure == nil)
        let listed = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: tree.absolutePath("fds"))), as: UTF8.self)
        // ls's own descriptor for /proc/self/fd is the 3.
        #expect(listed.split(separator: "\n") == ["0", "1", "2", "3"])
    }

    @Test("a command that does not exist is a failure naming it")
    func missingCommand() throws {
        let hook = HookSpec(name: "missing", command: bytes(["quotawatch-no-such-hook", "--flag"]))
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], onFailure: reports.onFailure)
        defer { runner.stop() }
        runner.submit(hookEvent("quota_warning", path: "tmp"))
        let failure = try #require(try reports.waitForFailures(1).first)
        #expect(failure.startError?.contains("'quotawatch-no-such-hook'") == true)
        #expect(failure.startError?.contains("No such file or directory") == true)
        #expect(failure.exitStatus == nil && failure.signal == nil && !failure.timedOut)
        #expect(failure.summary.contains("could not start"))
    }

    @Test("a non-zero exit is a failure with its status and the end of its stderr")
    func nonZeroExit() throws {
        let script = "head -c 9000 /dev/zero | tr '\\0' y >&2; echo ' webhook refused' >&2; exit 22"
        let hook = HookSpec(name: "curl-like", command: bytes(["sh", "-c", script]))
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], onFailure: reports.onFailure)
        defer { runner.stop() }
        runner.submit(hookEvent("quota_breach", path: "Documents"))
        let failure = try #require(try reports.waitForFailures(1).first)
        #expect(failure.exitStatus == 22)
        #expect(failure.standardErrorTail.count == 4096)
        #expect(String(decoding: failure.standardErrorTail, as: UTF8.self).hasSuffix("y webhook refused\n"))
        #expect(failure.path == Array("Documents".utf8))
    }

    @Test("only the events a hook wants reach it")
    func eventFilter() throws {
        let hook = HookSpec(name: "breaches", command: bytes(["true"]), events: ["quota_breach"])
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        runner.submit(hookEvent("quota_warning", path: "a"))
        runner.submit(hookEvent("quota_breach", path: "b"))
        let runs = try reports.waitForRuns(1)
        #expect(runs.map(\.event.kind) == ["quota_breach"])
        #expect(runner.statistics().first?.runs == 1)
        #expect(runner.statistics().first?.waiting == 0)
    }

    @Test("one instance at a time: the next run starts only after the previous one ended")
    func oneInstance() throws {
        let gate = try HookGate()
        let hook = HookSpec(name: "gated", command: gate.command, coalescesPerPath: false)
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], onFailure: reports.onFailure)
        defer { runner.stop() }
        for path in ["a", "b", "c"] { runner.submit(hookEvent("quota_breach", path: path)) }
        var lines: [String] = []
        for _ in 0..<3 {
            lines.append(try gate.nextLine())
            gate.letOneRunEnd()
            lines.append(try gate.nextLine())
        }
        #expect(lines == ["start a", "end a", "start b", "end b", "start c", "end c"])
    }

    @Test("a full queue drops its oldest events and counts them")
    func queueBound() throws {
        let gate = try HookGate()
        let hook = HookSpec(name: "slow", command: gate.command, queueLimit: 2, coalescesPerPath: false)
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        runner.submit(hookEvent("quota_breach", path: "e0"))
        #expect(try gate.nextLine() == "start e0")
        for index in 1...5 { runner.submit(hookEvent("quota_breach", path: "e\(index)")) }
        #expect(runner.statistics().first?.dropped == 3)
        #expect(runner.statistics().first?.waiting == 2)
        for _ in 0..<3 { gate.letOneRunEnd() }
        let runs = try reports.waitForRuns(3)
        #expect(runs.map { $0.event.path.map { String(decoding: $0, as: UTF8.self) } } == ["e0", "e4", "e5"])
    }

    @Test("waiting events for the same path and kind coalesce into the latest, in the first one's place")
    func coalescing() throws {
        let gate = try HookGate()
        let hook = HookSpec(name: "coalescing", command: gate.command, coalescesPerPath: true)
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        runner.submit(hookEvent("quota_breach", path: "first"))
        #expect(try gate.nextLine() == "start first")
        runner.submit(hookEvent("quota_breach", path: "a", allocated: 1))
        runner.submit(hookEvent("quota_breach", path: "b", allocated: 1))
        runner.submit(hookEvent("quota_breach", path: "a", allocated: 2))
        runner.submit(hookEvent("quota_ok", path: "a", allocated: 0))
        #expect(runner.statistics().first?.coalesced == 1)
        for _ in 0..<4 { gate.letOneRunEnd() }
        let runs = try reports.waitForRuns(4)
        let seen = runs.map { run in
            "\(run.event.kind) \(String(decoding: run.event.path ?? [], as: UTF8.self)) \(run.event.environment.last?.value ?? "")"
        }
        #expect(seen == ["quota_breach first 0", "quota_breach a 2", "quota_breach b 1", "quota_ok a 0"])
    }

    @Test("the rate limit lets one event per path and kind through per period, by the runner's clock")
    func rateLimit() throws {
        let clock = ManualClock()
        let hook = HookSpec(
            name: "limited", command: bytes(["true"]), rateLimitPerPath: .seconds(60), coalescesPerPath: false)
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], now: clock.now, onFailure: reports.onFailure, onRun: reports.onRun)
        defer { runner.stop() }
        runner.submit(hookEvent("quota_breach", path: "a"))
        clock.advance(by: .seconds(59))
        runner.submit(hookEvent("quota_breach", path: "a"))  // limited
        runner.submit(hookEvent("quota_breach", path: "b"))
        runner.submit(hookEvent("quota_ok", path: "a"))
        #expect(runner.statistics().first?.rateLimited == 1)
        clock.advance(by: .seconds(1))
        runner.submit(hookEvent("quota_breach", path: "a"))
        runner.submit(hookEvent("quota_breach", path: "b"))  // limited: b was let in one second ago
        let runs = try reports.waitForRuns(4)
        #expect(runner.statistics().first?.rateLimited == 2)
        let seen = runs.map { "\($0.event.kind) \(String(decoding: $0.event.path ?? [], as: UTF8.self))" }
        #expect(seen == ["quota_breach a", "quota_breach b", "quota_ok a", "quota_breach a"])
    }

    @Test("feeding 10 000 events to a slow hook returns at once, and stop() kills the run under way")
    func neverBlocks() throws {
        let gate = try HookGate()
        let hook = HookSpec(name: "stuck", command: gate.command, queueLimit: 64, coalescesPerPath: false)
        let reports = HookReports()
        let runner = try HookRunner(hooks: [hook], onFailure: reports.onFailure, onRun: reports.onRun)
        runner.submit(hookEvent("quota_breach", path: "first"))
        #expect(try gate.nextLine() == "start first")

        let started = ContinuousClock.now
        for index in 0..<10_000 { runner.submit(hookEvent("quota_breach", path: "p\(index)")) }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(2), "submitting took \(elapsed)")
        let statistics = try #require(runner.statistics().first)
        #expect(statistics.dropped == 10_000 - 64)
        #expect(statistics.waiting == 64)

        let stopping = ContinuousClock.now
        runner.stop()
        #expect(ContinuousClock.now - stopping < .seconds(10))
        #expect(runner.statistics().first?.waiting == 0)
        // The killed run is not reported as a failure: the runner stopped it, not the hook. stop()
        // has joined the hook's thread, so any report would be in already.
        #expect(reports.snapshot.runs == 0 && reports.snapshot.failures == 0)
    }
}
