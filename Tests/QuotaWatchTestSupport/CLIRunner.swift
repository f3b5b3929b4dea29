import Foundation
import Glibc

/// Runs the `quotawatch` binary that SwiftPM built next to the test bundle.
public struct CLIRunner: Sendable {
    public let executablePath: String

    public init(executablePath: String) {
        self.executablePath = executablePath
    }

    /// Finds the binary: `$QUOTAWATCH_BINARY` when set, else `quotawatch` in
    /// the directory of the running test executable.
    public static func locate() throws -> CLIRunner {
        _ = sharedStateDirectory
        if let override = ProcessInfo.processInfo.environment["QUOTAWATCH_BINARY"], !override.isEmpty {
            return CLIRunner(executablePath: override)
        }
        var candidates: [String] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(executable)
        }
        if let first = CommandLine.arguments.first {
            candidates.append(first)
        }
        for candidate in candidates {
            var directory = URL(fileURLWithPath: candidate).deletingLastPathComponent()
            // On some layouts the test executable sits inside a bundle folder.
            for _ in 0..<2 {
                let binary = directory.appendingPathComponent("quotawatch").path
                if access(binary, X_OK) == 0 {
                    return CLIRunner(executablePath: binary)
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw OracleError("no quotawatch binary next to the test executable (looked from \(candidates))")
    }

    /// A runner whose binary `user` can execute: this one when it can reach
    /// it, else a copy placed in `staging` (whose root is made 0755). The
    /// build directory may sit below a folder that only root can enter.
    public func executable(by user: UserIdentity, stagingIn staging: TempTree) throws -> CLIRunner {
        let probe = try ProcessRunner.run("/bin/sh", ["-c", "test -x \"$1\"", "sh", executablePath], as: user)
        if probe.exitStatus == 0 { return self }
        try staging.setMode(.root, 0o755)
        let contents = try [UInt8](Data(contentsOf: URL(fileURLWithPath: executablePath)))
        try staging.writeFile("quotawatch", contents: contents, mode: 0o755)
        return CLIRunner(executablePath: staging.absolutePath("quotawatch"))
    }

    /// Runs `quotawatch` with `arguments`, as `user` when given.
    public func run(_ arguments: [String], as user: UserIdentity? = nil) throws -> ProcessResult {
        try ProcessRunner.run(executablePath, arguments, as: user)
    }

    /// Runs `quotawatch scan ROOT --json` plus `options`, and decodes stdout
    /// when it is valid JSON.
    public func scanJSON(
        root: String,
        options: [String] = [],
        as user: UserIdentity? = nil
    ) throws -> (result: ProcessResult, report: ScanReport?) {
        let result = try run(["scan", root, "--json"] + options, as: user)
        return (result, try? ScanReport.decode(result.standardOutput))
    }
}

/// History is on by default, so every `run` and `watch` a test starts writes a state
/// directory: unless the test names one (STATE_DIRECTORY in its environment, `--state-dir`),
/// it is this process's own temporary one, removed when the test process exits, never
/// `/var/lib/quotawatch` or the user's `~/.local/state`.
private let sharedStateDirectory: Void = {
    guard ProcessInfo.processInfo.environment["STATE_DIRECTORY"] == nil else { return }
    var template = Array("\(NSTemporaryDirectory())/qw-test-state.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { return }
    setenv("STATE_DIRECTORY", made, 0)
    atexit {
        if let path = getenv("STATE_DIRECTORY"), String(cString: path).contains("/qw-test-state.") {
            try? FileManager.default.removeItem(atPath: String(cString: path))
        }
    }
}()
