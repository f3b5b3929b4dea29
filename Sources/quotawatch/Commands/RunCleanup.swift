import QuotaWatchEngine

/// `run`'s cleaning options: whether the cleaners delete.
enum RunCleanup {
    static let options = [
        OptionSpec(
            name: "--clean",
            help: "Let the cleaners delete (audit log under $STATE_DIRECTORY); without it they only report."),
        OptionSpec(name: "--dry-run", help: "Cleanup runs list what they would remove and remove nothing."),
        OptionSpec(
            name: "--state-dir", valueName: "<dir>",
            help: "Keep the audit log and history under DIR/NAME (as STATE_DIRECTORY=DIR; 'history --state-dir')."),
    ]

    /// `--state-dir`, as an absolute path (relative to the working directory when it is not).
    static func stateDirectoryBase(_ arguments: ParsedArguments) -> [UInt8]? {
        arguments.values["--state-dir"].map { RootOptions.absoluteBytes($0.bytes) }
    }

    static func options(_ arguments: ParsedArguments, absoluteRoot: [UInt8]) -> CleanupOptions {
        var cleanup = CleanupOptions()
        cleanup.clean = arguments.has("--clean")
        cleanup.dryRun = arguments.has("--dry-run")
        cleanup.stateDirectory = StateDirectory.forRoot(absoluteRoot, base: stateDirectoryBase(arguments))
        return cleanup
    }
}
