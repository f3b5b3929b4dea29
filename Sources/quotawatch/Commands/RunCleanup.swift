import QuotaWatchEngine

/// `run`'s cleaning options: whether the cleaners delete.
enum RunCleanup {
    static let options = [
        OptionSpec(
            name: "--clean",
            help: "Let the cleaners delete (audit log under $STATE_DIRECTORY); without it they only report."),
        OptionSpec(name: "--dry-run", help: "Cleanup runs list what they would remove and remove nothing."),
    ]

    static func options(_ arguments: ParsedArguments, absoluteRoot: [UInt8]) -> CleanupOptions {
        var cleanup = CleanupOptions()
        cleanup.clean = arguments.has("--clean")
        cleanup.dryRun = arguments.has("--dry-run")
        cleanup.stateDirectory = StateDirectory.forRoot(absoluteRoot)
        return cleanup
    }
}
