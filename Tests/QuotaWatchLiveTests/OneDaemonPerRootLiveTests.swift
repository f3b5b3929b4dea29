import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Two daemons on one ROOT, each with its own socket, would share its state directory: the
/// second is refused, naming the first.
@Suite("one daemon per root")
struct OneDaemonPerRootLiveTests {
    @Test("a second daemon on the same root with another socket exits 69, naming the first one's pid and socket")
    func secondDaemonOnTheRoot() throws {
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-one-daemon-state")
        let environment = ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"]
        let first = try fixture.start(wrapper: environment)
        let otherSocket = fixture.tree.absolutePath("run/other.sock")
        let second = try Daemon.launch(fixture.cli, root: fixture.rootPath, socket: otherSocket, wrapper: environment)
        let exit = try second.waitForExit()
        print("the second daemon said: \(exit.errorText)")
        #expect(exit.exitStatus == 69, "\(exit)")
        #expect(exit.errorText.contains("pid \(first.processID)"), "\(exit)")
        #expect(exit.errorText.contains(fixture.socketPath), "\(exit)")
        #expect(!exit.events.contains { $0.event == "ready" }, "\(exit)")
        _ = try first.status()

        // The lock is not inherited by what the daemon starts.
        let lock = try #require(Self.descriptorFlags(first.processID, target: "daemon.lock"), "no lock file open")
        #expect(lock & O_CLOEXEC != 0, "flags \(String(lock, radix: 8))")

        // Released when the first one stops, however: the next one starts.
        _ = try first.stop(SIGKILL)
        let third = try Daemon.start(fixture.cli, root: fixture.rootPath, socket: otherSocket, wrapper: environment)
        #expect(try third.stop().exitStatus == 0)
    }

    /// The open flags of the descriptor of `processID` whose target ends with `target`.
    static func descriptorFlags(_ processID: pid_t, target: String) -> CInt? {
        let directory = "/proc/\(processID)/fd"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                link.hasSuffix("/" + target),
                let info = try? String(contentsOfFile: "/proc/\(processID)/fdinfo/\(name)", encoding: .utf8),
                let line = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") })
            else { continue }
            return CInt(line.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        }
        return nil
    }
}
