import Foundation
import Glibc

/// A user and group to run a child process as.
public struct UserIdentity: Sendable, Hashable, CustomStringConvertible {
    public let uid: uid_t
    public let gid: gid_t

    public init(uid: uid_t, gid: gid_t) {
        self.uid = uid
        self.gid = gid
    }

    /// The conventional unprivileged user on Debian.
    public static let nobody = UserIdentity(uid: 65534, gid: 65534)

    public var description: String { "uid \(uid), gid \(gid)" }
}

/// How a child process ended, and everything it wrote.
public struct ProcessResult: Sendable, CustomStringConvertible {
    public enum Termination: Sendable, Equatable {
        case exited(CInt)
        case signaled(CInt)
    }

    public let command: [String]
    public let termination: Termination
    public let standardOutput: [UInt8]
    public let standardError: [UInt8]

    /// The exit status, or nil when a signal ended the process.
    public var exitStatus: CInt? {
        if case .exited(let status) = termination { return status }
        return nil
    }

    /// Standard output for display; bytes that are not UTF-8 are replaced.
    public var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
    /// Standard error for display; bytes that are not UTF-8 are replaced.
    public var errorText: String { String(decoding: standardError, as: UTF8.self) }

    public var description: String {
        // A NUL (find -printf '…\0') would end the message where Swift Testing prints it.
        let text = outputText.replacingOccurrences(of: "\0", with: "\\0")
        let output = text.count > 2000 ? String(text.prefix(2000)) + "…" : text
        return """
            command: \(command.joined(separator: " "))
            termination: \(termination)
            stdout: \(output)
            stderr: \(errorText)
            """
    }
}

/// Runs a program with posix_spawn and waits for it, capturing standard
/// output and standard error as bytes (through unlinked temporary files, so
/// neither stream can block the other). Standard input is /dev/null.
public enum ProcessRunner {
    /// The setpriv binary used to drop to another user, if installed.
    public static let setprivPath: String? = findExecutable("setpriv")

    /// Runs `executable` (a path, or a name looked up in PATH) with
    /// `arguments`.
    ///
    /// - Parameters:
    ///   - user: when set, the program runs through `setpriv` as that user and
    ///     group with no supplementary groups. Needs root.
    ///   - workingDirectory: a directory descriptor the child changes into
    ///     before it runs (through fchdir, so its path may exceed PATH_MAX).
    ///   - environment: extra variables, added to this process's environment.
    public static func run(
        _ executable: String,
        _ arguments: [[UInt8]],
        as user: UserIdentity? = nil,
        workingDirectory: CInt? = nil,
        environment: [String: String] = [:]
    ) throws -> ProcessResult {
        var argv: [[UInt8]] = [Array(executable.utf8)] + arguments
        var program = executable
        if let user {
            guard let setprivPath else {
                throw SystemCallError("posix_spawn", "setpriv is not installed", errno: ENOENT)
            }
            program = setprivPath
            argv =
                [
                    setprivPath, "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--",
                ].map { Array($0.utf8) } + argv
        }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        let environmentStrings = variables.map { Array("\($0.key)=\($0.value)".utf8) }

        let output = try CapturedStream()
        let error = try CapturedStream()

        var actions = posix_spawn_file_actions_t()
        try checkingReturnedError("posix_spawn_file_actions_init", program) {
            posix_spawn_file_actions_init(&actions)
        }
        defer { posix_spawn_file_actions_destroy(&actions) }
        try checkingReturnedError("posix_spawn_file_actions_addopen", "/dev/null") {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        try checkingReturnedError("posix_spawn_file_actions_adddup2", "stdout") {
            posix_spawn_file_actions_adddup2(&actions, output.descriptor, 1)
        }
        try checkingReturnedError("posix_spawn_file_actions_adddup2", "stderr") {
            posix_spawn_file_actions_adddup2(&actions, error.descriptor, 2)
        }
        if let workingDirectory {
            try checkingReturnedError("posix_spawn_file_actions_addfchdir_np", program) {
                addFchdir(&actions, workingDirectory)
            }
        }

        var processID: pid_t = 0
        try withCStringArray(argv) { (cArguments) throws(SystemCallError) in
            try withCStringArray(environmentStrings) { (cEnvironment) throws(SystemCallError) in
                try checkingReturnedError("posix_spawnp", program) {
                    posix_spawnp(&processID, program, &actions, nil, cArguments, cEnvironment)
                }
            }
        }

        var status: CInt = 0
        try retryingOnInterrupt("waitpid", program) { waitpid(processID, &status, 0) }
        let termination: ProcessResult.Termination =
            status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)

        return ProcessResult(
            command: argv.map { String(decoding: $0, as: UTF8.self) },
            termination: termination,
            standardOutput: try output.contents(),
            standardError: try error.contents()
        )
    }

    /// Runs `executable` with String arguments.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        as user: UserIdentity? = nil,
        workingDirectory: CInt? = nil,
        environment: [String: String] = [:]
    ) throws -> ProcessResult {
        try run(
            executable,
            arguments.map { Array($0.utf8) },
            as: user,
            workingDirectory: workingDirectory,
            environment: environment
        )
    }

    /// The first executable file called `name` in PATH, or nil.
    public static func findExecutable(_ name: String) -> String? {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let directories = searchPath.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/bin"]
        return directories.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// posix_spawn_file_actions_addfchdir_np is declared only under
    /// _GNU_SOURCE, which Swift's Glibc module does not define, so it is
    /// looked up at run time (glibc has had it since 2.29).
    private typealias AddFchdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, CInt) -> CInt

    private static func addFchdir(
        _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>,
        _ descriptor: CInt
    ) -> CInt {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addfchdir_np") else {
            return ENOSYS
        }
        return unsafeBitCast(symbol, to: AddFchdir.self)(actions, descriptor)
    }
}

/// An unlinked temporary file that a child writes one stream into.
private final class CapturedStream {
    let descriptor: CInt

    init() throws(SystemCallError) {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/quotawatch-capture.XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw SystemCallError("mkstemp", base, errno: errno) }
        unlink(template)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    func contents() throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var offset: off_t = 0
        while true {
            let count = try retryingOnInterrupt("pread", "captured output") {
                buffer.withUnsafeMutableBytes { raw in pread(descriptor, raw.baseAddress!, raw.count, offset) }
            }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
            offset += off_t(count)
        }
    }
}

/// Hands `body` a NULL-terminated array of NUL-terminated strings.
private func withCStringArray<Result>(
    _ strings: [[UInt8]],
    _ body: ([UnsafeMutablePointer<CChar>?]) throws(SystemCallError) -> Result
) throws(SystemCallError) -> Result {
    let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { bytes in
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
        pointer[bytes.count] = 0
        return pointer
    }
    defer { for pointer in pointers { pointer?.deallocate() } }
    return try body(pointers + [nil])
}
