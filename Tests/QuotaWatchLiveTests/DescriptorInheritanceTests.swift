import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Hooks are spawned with every descriptor above 2 closed, but the daemon opens everything
/// close-on-exec anyway, so that nothing it holds could leak into any child by another route.
@Suite("the daemon's descriptors")
struct DescriptorInheritanceTests {
    @Test("every descriptor the running daemon holds above 2 is close-on-exec")
    func allCloseOnExec() throws {
        let fixture = try LiveFixture()
        try fixture.tree.makeDirectories(LiveFixture.root / "a" / "b")
        try fixture.tree.writeFile(LiveFixture.root / "a" / "b" / "file", byteCount: 10_000)
        let daemon = try fixture.start()
        // A status request makes the control server accept a connection and open its threads'
        // descriptors too.
        _ = try daemon.status()

        let fdinfo = "/proc/\(daemon.processID)/fdinfo"
        let names = try FileManager.default.contentsOfDirectory(atPath: fdinfo).compactMap { Int32($0) }
        #expect(names.contains { $0 > 2 }, "the daemon holds no descriptor above 2? \(names)")
        var leaking: [String] = []
        for number in names where number > 2 {
            // A descriptor closed between listing and reading is no leak.
            guard let info = try? String(contentsOfFile: "\(fdinfo)/\(number)", encoding: .utf8) else { continue }
            let flagsLine = info.split(separator: "\n").first { $0.hasPrefix("flags:") }
            let flags = flagsLine.flatMap {
                UInt32($0.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8)
            }
            if let flags, flags & UInt32(O_CLOEXEC) == 0 {
                let target =
                    (try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "/proc/\(daemon.processID)/fd/\(number)")) ?? "?"
                leaking.append("\(number) -> \(target)")
            }
        }
        #expect(leaking.isEmpty, "descriptors without close-on-exec: \(leaking)")
        #expect(try daemon.stop().exitStatus == 0)
    }
}
