import Foundation
import Glibc

/// posix_spawn with standard output and standard error on socket pairs made close-on-exec,
/// so no other child started meanwhile by a parallel test inherits them, and with every
/// other descriptor closed in the child, so the daemon holds nothing of the test process's.
public enum DaemonSpawner {
    public static func spawn(_ command: [String]) throws -> (processID: pid_t, output: CInt, errors: CInt) {
        let output = try socketPair()
        let errors: (CInt, CInt)
        do {
            errors = try socketPair()
        } catch {
            close(output.0)
            close(output.1)
            throw error
        }
        defer {
            close(output.1)
            close(errors.1)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output.1, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.1, 2)
        addCloseFrom(&actions, 3)
        // Start as from an interactive shell: termination signals at their defaults and none
        // blocked, whatever this test process inherited or set up.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        var processID: pid_t = 0
        let result = withCStrings(command) { argv in
            withCStrings(environment) { envp in
                posix_spawnp(&processID, command[0], &actions, &attributes, argv, envp)
            }
        }
        guard result == 0 else {
            for descriptor in [output.0, errors.0] { close(descriptor) }
            throw SystemCallError("posix_spawnp", command[0], errno: result)
        }
        return (processID, output.0, errors.0)
    }

    private static func socketPair() throws(SystemCallError) -> (CInt, CInt) {
        var descriptors: [CInt] = [-1, -1]
        let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else {
            throw SystemCallError("socketpair", "daemon output", errno: errno)
        }
        return (descriptors[0], descriptors[1])
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, CInt) -> CInt

    /// posix_spawn_file_actions_addclosefrom_np (glibc 2.34), looked up at run time because
    /// Swift's Glibc module hides it behind _GNU_SOURCE. Without it the child keeps only what
    /// was opened close-on-exec, which is all this support code opens.
    private static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: CInt) {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(actions, lowest)
    }

    private static func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
