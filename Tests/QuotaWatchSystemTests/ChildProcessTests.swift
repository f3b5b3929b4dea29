import Foundation
import Glibc
import Testing

@testable import QuotaWatchSystem

@Suite("Child processes")
struct ChildProcessTests {
    private func request(
        _ arguments: [String], environment: [String] = ["PATH=/usr/bin:/bin"], input: String = "",
        output: ChildProcess.Output = .discard
    ) -> ChildProcess.Request {
        ChildProcess.Request(
            arguments: arguments.map(\.bytes), environment: environment.map(\.bytes), standardInput: input.bytes,
            standardOutput: output)
    }

    @Test("stdin carries the input and then end-of-file; the environment is exactly the one given")
    func inputAndEnvironment() throws {
        let scratch = try ScratchDirectory()
        let input = #"{"event":"quota_breach","path":"Library/Caches/Feed"}"# + "\n"
        let copied = try ChildProcess.run(
            request(["cat"], input: input, output: .appending(to: scratch.file("stdin").bytes)), timeout: .seconds(20))
        #expect(copied.termination == .exited(status: 0))
        #expect(try scratch.contents("stdin") == input)

        let environment = ["QUOTAWATCH_EVENT=quota_breach", "QUOTAWATCH_PATH=Library/Caches/Feed", "HOME=/root"]
        let listed = try ChildProcess.run(
            request(["/usr/bin/env"], environment: environment, output: .appending(to: scratch.file("env").bytes)),
            timeout: .seconds(20))
        #expect(listed.termination == .exited(status: 0))
        #expect(try scratch.contents("env") == environment.joined(separator: "\n") + "\n")
    }

    @Test("input larger than a pipe still arrives whole")
    func largeInput() throws {
        let scratch = try ScratchDirectory()
        let input = String(repeating: "0123456789abcdef", count: 16 * 1024)  // 256 KiB
        let outcome = try ChildProcess.run(
            request(["cat"], input: input, output: .appending(to: scratch.file("out").bytes)), timeout: .seconds(20))
        #expect(outcome.termination == .exited(status: 0))
        #expect(try scratch.contents("out") == input)
    }

    @Test("the child holds descriptors 0, 1 and 2 only, even when the parent has one open without close-on-exec")
    func noInheritedDescriptors() throws {
        let scratch = try ScratchDirectory()
        let leaked = open(scratch.file("leaked"), O_WRONLY | O_CREAT, 0o600)  // deliberately no O_CLOEXEC
        #expect(leaked >= 0)
        defer { close(leaked) }
        let outcome = try ChildProcess.run(
            request(["ls", "-l", "/proc/self/fd"], output: .appending(to: scratch.file("fds").bytes)),
            timeout: .seconds(20))
        #expect(outcome.termination == .exited(status: 0))
        // "lrwx------ 1 root root 64 … 3 -> /proc/1234/fd": descriptor number, then target.
        var targets: [Int: String] = [:]
        for line in try scratch.contents("fds").split(separator: "\n") {
            guard let arrow = line.range(of: " -> ") else { continue }
            let number = line[..<arrow.lowerBound].split(separator: " ").last.flatMap { Int($0) }
            targets[number ?? -1] = String(line[arrow.upperBound...])
        }
        let extra = targets.keys.filter { $0 > 2 }
        // ls's own descriptor for the directory it lists is the only one above 2.
        #expect(extra.count == 1, "descriptors: \(targets)")
        #expect(extra.allSatisfy { targets[$0]?.hasPrefix("/proc/") == true && targets[$0]?.hasSuffix("/fd") == true })
        #expect(targets[0]?.hasPrefix("pipe:") == true)
        #expect(targets[1] == scratch.file("fds"))
        #expect(targets[2]?.hasPrefix("pipe:") == true)
        #expect(!targets.values.contains(scratch.file("leaked")))
    }

    @Test("exit status and terminating signal are told apart")
    func termination() throws {
        #expect(
            try ChildProcess.run(request(["sh", "-c", "exit 3"]), timeout: .seconds(20)).termination
                == .exited(status: 3))
        let killed = try ChildProcess.run(request(["sh", "-c", "kill -USR1 $$"]), timeout: .seconds(20))
        #expect(killed.termination == .signaled(SIGUSR1))
        #expect(!killed.timedOut)
    }

    @Test("a command that does not exist is a spawn error naming it")
    func missingCommand() throws {
        let error = #expect(throws: SpawnError.self) {
            try ChildProcess.run(request(["quotawatch-no-such-hook"]), timeout: .seconds(5))
        }
        #expect(error?.errno == .noSuchFileOrDirectory)
        #expect(error?.step == .start)
        #expect(error?.description.contains("'quotawatch-no-such-hook'") == true)
        #expect(error?.description.contains("PATH") == true)

        let absolute = #expect(throws: SpawnError.self) {
            try ChildProcess.run(request(["/nonexistent/hook.sh"]), timeout: .seconds(5))
        }
        #expect(absolute?.description == "cannot run '/nonexistent/hook.sh': No such file or directory")
    }

    @Test("an output file that cannot be opened is its own error")
    func unopenableOutput() throws {
        let error = #expect(throws: SpawnError.self) {
            try ChildProcess.run(
                request(["true"], output: .appending(to: "/nonexistent/dir/out.log".bytes)), timeout: .seconds(5))
        }
        #expect(error?.step == .standardOutput(path: "/nonexistent/dir/out.log".bytes))
    }

    @Test("an output file that is a FIFO with no reader fails at once instead of blocking the hook's thread")
    func fifoOutputWithoutReader() throws {
        let scratch = try ScratchDirectory()
        let fifo = scratch.file("out.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let error = #expect(throws: SpawnError.self) {
            try ChildProcess.run(request(["true"], output: .appending(to: fifo.bytes)), timeout: .seconds(5))
        }
        #expect(error?.step == .standardOutput(path: fifo.bytes))
    }

    @Test(
        "a child that outlives its timeout is killed with its whole group, a grandchild ignoring SIGTERM too",
        arguments: [ChildProcess.ExitWatchMethod.automatic, .waiterThread])
    func timeoutKillsGroup(method: ChildProcess.ExitWatchMethod) throws {
        // The grandchild ignores SIGTERM, so only the SIGKILL after the grace period ends it.
        // Its process ID is the last line on stderr; the stderr before it overflows the tail.
        let script = """
            head -c 10000 /dev/zero | tr '\\0' x >&2
            echo >&2
            sh -c 'trap "" TERM; exec sleep 600' &
            echo "grandchild $!" >&2
            wait
            """
        let started = ContinuousClock.now
        let outcome = try ChildProcess.run(
            request(["sh", "-c", script]), timeout: .seconds(2), killGrace: .milliseconds(300), cancellation: nil,
            exitWatch: method)
        #expect(outcome.timedOut)
        #expect(!outcome.cancelled)
        #expect(outcome.termination == .signaled(SIGTERM))
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(outcome.standardErrorTail.count == 4096)
        let lastLine = String(decoding: outcome.standardErrorTail, as: UTF8.self).split(separator: "\n").last ?? ""
        #expect(lastLine.hasPrefix("grandchild "))
        let grandchild = try #require(Int32(lastLine.dropFirst("grandchild ".count)))
        #expect(try ProcessWatch.waitForExit(of: grandchild, timeout: .seconds(10)))
    }

    @Test("a readable cancellation descriptor ends the run at once")
    func cancellation() throws {
        let wakeup = try WakeupPipe()
        defer { wakeup.close() }
        wakeup.wake()
        let outcome = try ChildProcess.run(
            request(["sleep", "600"]), timeout: .seconds(600), killGrace: .seconds(5), cancellation: wakeup.readEnd)
        #expect(outcome.cancelled)
        #expect(!outcome.timedOut)
        #expect(outcome.termination == .signaled(SIGTERM))
    }

    @Test("the waiter thread notices an ordinary exit as the pidfd does")
    func waiterThreadExit() throws {
        let outcome = try ChildProcess.run(
            request(["sh", "-c", "echo done >&2; exit 7"]), timeout: .seconds(20), killGrace: .seconds(1),
            cancellation: nil, exitWatch: .waiterThread)
        #expect(outcome.termination == .exited(status: 7))
        #expect(outcome.standardErrorTail == "done\n".bytes)
    }

    @Test("the child starts with no signal blocked or ignored, whatever the daemon blocks and ignores")
    func signalsReset() throws {
        let scratch = try ScratchDirectory()
        // A real-time signal too: a daemon can inherit one ignored from whatever started it.
        let realTime: CInt = 40
        let previous = signal(SIGPIPE, SIG_IGN)
        let previousRealTime = signal(realTime, SIG_IGN)
        defer {
            signal(SIGPIPE, previous)
            signal(realTime, previousRealTime)
        }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for number in [SIGINT, SIGTERM, SIGHUP, realTime] { sigaddset(&blocked, number) }
        var old = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }

        let outcome = try ChildProcess.run(
            request(["cat", "/proc/self/status"], output: .appending(to: scratch.file("status").bytes)),
            timeout: .seconds(20))
        #expect(outcome.termination == .exited(status: 0))
        let status = try scratch.contents("status")
        func mask(_ field: String) -> UInt64? {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
            return line.flatMap {
                UInt64($0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces), radix: 16)
            }
        }
        // Bit N-1 is signal N, for every signal, the real-time ones included.
        #expect(mask("SigBlk") == 0, "\(status)")
        #expect(mask("SigIgn") == 0, "\(status)")
    }

    @Test("the child leads a process group of its own")
    func ownProcessGroup() throws {
        let scratch = try ScratchDirectory()
        let outcome = try ChildProcess.run(
            request(["cat", "/proc/self/stat"], output: .appending(to: scratch.file("stat").bytes)),
            timeout: .seconds(20))
        #expect(outcome.termination == .exited(status: 0))
        // "PID (cat) STATE PPID PGRP …"
        let stat = try scratch.contents("stat")
        let processID = stat.split(separator: " ").first.flatMap { Int32($0) }
        let afterName = stat[stat.range(of: ") ")!.upperBound...].split(separator: " ")
        #expect(processID != nil)
        #expect(Int32(afterName[2]) == processID)
        #expect(processID != getpgrp())
    }
}
