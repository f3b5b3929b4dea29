import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// contrib/systemd/quotawatch@.service, checked by systemd's own parser.
@Suite("the systemd unit")
struct ServiceUnitTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../contrib/systemd/quotawatch@.service").standardized.path
    static let analyze = ProcessRunner.findExecutable("systemd-analyze")

    @Test(
        "systemd-analyze verify accepts an instance of the unit, with no warning",
        .enabled(if: analyze != nil, "needs systemd-analyze (Debian's systemd package)"))
    func verify() throws {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        let installed = "/usr/local/bin/quotawatch"
        #expect(text.contains("ExecStart=\(installed) run %f --config /etc/quotawatch/%i.yaml"), "\(text)")
        // verify checks that ExecStart's program exists: point it at the binary under test.
        let cli = try CLIRunner.locate()
        let directory = try TempTree(prefix: "qw-unit")
        try directory.writeFile(
            "quotawatch@.service",
            contents: Array(text.replacingOccurrences(of: installed, with: cli.executablePath).utf8))
        let instance = directory.absolutePath("quotawatch@srv-app.service")
        let result = try ProcessRunner.run(Self.analyze!, [Array("verify".utf8), Array(instance.utf8)])
        #expect(result.exitStatus == 0, "\(result)")
        // An unknown or misspelt key is only a warning, with status 0.
        #expect(result.errorText.isEmpty, "\(result)")
        let broken = try TempTree(prefix: "qw-unit")
        try broken.writeFile(
            "quotawatch@.service",
            contents: Array(
                text.replacingOccurrences(of: installed, with: cli.executablePath)
                    .replacingOccurrences(of: "ProtectSystem=", with: "ProtectSystm=").utf8))
        let misspelt = try ProcessRunner.run(
            Self.analyze!, [Array("verify".utf8), Array(broken.absolutePath("quotawatch@srv-app.service").utf8)])
        #expect(misspelt.errorText.contains("ProtectSystm"), "the check cannot see a bad key: \(misspelt)")
    }
}

extension ServiceUnitTests {
    static let multiRootUnit = URL(fileURLWithPath: unit).deletingLastPathComponent()
        .appendingPathComponent("quotawatch.service").path

    @Test(
        "systemd-analyze verify accepts the many-roots unit, with no warning; it keeps the template's hardening",
        .enabled(if: analyze != nil, "needs systemd-analyze (Debian's systemd package)"))
    func verifyMultiRoot() throws {
        let text = try String(contentsOfFile: Self.multiRootUnit, encoding: .utf8)
        let installed = "/usr/local/bin/quotawatch"
        #expect(text.contains("ExecStart=\(installed) run --config /etc/quotawatch/quotawatch.yaml"), "\(text)")
        let cli = try CLIRunner.locate()
        let directory = try TempTree(prefix: "qw-unit")
        try directory.writeFile(
            "quotawatch.service",
            contents: Array(text.replacingOccurrences(of: installed, with: cli.executablePath).utf8))
        let result = try ProcessRunner.run(
            Self.analyze!, [Array("verify".utf8), Array(directory.absolutePath("quotawatch.service").utf8)])
        #expect(result.exitStatus == 0 && result.errorText.isEmpty, "\(result)")
        // Every hardening line of the template is here too, but for the paths it may write.
        let template = try String(contentsOfFile: Self.unit, encoding: .utf8)
        let settings = { (unit: String) in
            Set(unit.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }.map(String.init))
        }
        let missing = settings(template).subtracting(settings(text)).filter {
            !$0.hasPrefix("ExecStart=") && !$0.hasPrefix("Description=") && !$0.hasPrefix("ReadWritePaths=")
                && !$0.hasPrefix("ProtectHome=")
        }
        #expect(missing.isEmpty, "settings of quotawatch@.service missing from quotawatch.service: \(missing)")
    }
}
