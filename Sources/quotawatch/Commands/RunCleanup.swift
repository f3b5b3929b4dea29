import QuotaWatchCleaning
import QuotaWatchEngine

/// `run`'s cleaning options: whether the cleaners delete, and where the audit log goes.
enum RunCleanup {
    static let clean = Flag(
        "--clean", help: "Let the cleaners delete (audit log under $STATE_DIRECTORY); without it they only report.")
    static let dryRun = Flag("--dry-run", help: "Cleanup runs list what they would remove and remove nothing.")
    static let stateDirectory = Option(
        "--state-dir", value: "<dir>",
        help: "Keep the audit log and history under DIR/NAME (as STATE_DIRECTORY=DIR; 'history --state-dir').",
        .directory)
    static let declarations = [clean.spec, dryRun.spec, stateDirectory.spec]

    struct Options: Sendable {
        var clean: Bool
        var dryRun: Bool
        /// `--state-dir`, as an absolute path (relative to the working directory when it is not).
        var stateDirectoryBase: [UInt8]?

        init(_ arguments: ParsedArguments) throws(UsageError) {
            clean = arguments[RunCleanup.clean]
            dryRun = arguments[RunCleanup.dryRun]
            stateDirectoryBase = try arguments.value(RunCleanup.stateDirectory).map {
                RootOptions.absoluteBytes($0.bytes)
            }
        }

        func cleanup(absoluteRoot: [UInt8]) -> CleanupOptions {
            var cleanup = CleanupOptions()
            cleanup.clean = clean
            cleanup.dryRun = dryRun
            cleanup.stateDirectory = StateDirectory.forRoot(absoluteRoot, base: stateDirectoryBase)
            return cleanup
        }
    }
}
