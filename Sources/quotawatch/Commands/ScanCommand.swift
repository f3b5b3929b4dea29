import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// `quotawatch scan ROOT`: one crawl, du's numbers for every directory.
enum ScanCommand {
    static let subcommand = Subcommand(
        name: "scan",
        abstract: "Count the disk use of every directory under a root, as du does.",
        discussion: """
            Allocated size is st_blocks x 512 and apparent size is st_size, summed over every
            inode in each directory's subtree (the directory itself included, symlinks not
            followed, each hard-linked inode once per subtree): allocated equals `du -sB1 DIR`
            and apparent equals `du -sb DIR` for every directory.
            Exit status: 0 on success, 1 when some directory could not be read, 64 on bad usage.
            """,
        arguments: [ArgumentSpec(name: "root", help: "The directory to scan.")],
        options: Options.self, run: run)

    /// Chosen as status chooses them: the same --depth and --top, the same defaults.
    static let depth = TreeSelectionOptions.depth.described(
        value: "<n>", "Show directories down to this depth, or 'all' (default 1; with --json or --top, all).")
    static let json = Flag("--json", help: "Print the directories shown as one JSON object (see docs/json.md).")
    static let oneFileSystem = Flag("--one-file-system", help: "Skip directories on other file systems (du -x).")
    static let workers = Option(
        "--workers", value: "<n>", help: "Crawler threads (default: one per core, at least 2).",
        .wholeNumber(in: 1...256))

    struct Options: CommandOptions {
        static let declarations =
            [ScanCommand.depth.spec, TreeSelectionOptions.top.spec, ScanCommand.json.spec]
            + ByteFormatOptions.declarations
            + [ScanCommand.oneFileSystem.spec, ScanCommand.workers.spec] + PhoneStorageOptions.declarations

        var root: CommandLineArgument
        var selection: TreeSelectionOptions
        var json: Bool
        var format: ByteFormatOptions
        var oneFileSystem: Bool
        var workers: Int
        var phone: PhoneStorageOptions.Request?

        init(_ arguments: ParsedArguments) throws(UsageError) {
            selection = try TreeSelectionOptions(arguments, readsPath: false)
            json = arguments[ScanCommand.json]
            format = ByteFormatOptions(arguments)
            oneFileSystem = arguments[ScanCommand.oneFileSystem]
            workers = try arguments.value(ScanCommand.workers) ?? CrawlOptions().workers
            root = try arguments.single("root")
            phone = try PhoneStorageOptions.request(arguments)
        }

        func validate() throws(ValidationError) { try format.validate() }
    }

    static func run(_ given: Options) throws(UsageError) -> ExitStatus {
        let root = given.root
        let format = given.format.format
        let selection = given.selection.selection(json: given.json)
        let phone = try PhoneStorageOptions.measure(given.phone, command: "scan")
        let options = CrawlOptions(workers: given.workers, oneFileSystem: given.oneFileSystem)
        ResourceLimits.raiseOpenFileLimit()
        MemoryTuning.returnLargeBlocksToKernel()

        let progress = ProgressLine(enabled: Console.errorIsTerminal)
        let scanned: ScannedTree
        do {
            scanned = try TreeScanner(options: options).scan(path: root.bytes) { progress.update($0) }
        } catch {
            progress.clear()
            return RootOptions.report(error)
        }
        progress.clear()
        for warning in scanned.warnings { Console.error(RootOptions.describe(warning, root: root)) }

        let report = scanned.tree.report(
            root: EscapedName.string(RootOptions.canonicalBytes(root.bytes)), selection: selection)
        if given.json {
            Console.json(
                (phone.map { PhoneStorageOptions.json(report, $0.storage(scanned.tree)) } ?? JSONOutput.encode(report))
                    + "\n")
        } else {
            Console.out(TableRenderer.render(report, format: format))
            if let phone { Console.out(PhoneStorageOptions.text(phone.storage(scanned.tree), format: format)) }
        }
        return scanned.warnings.isEmpty ? .success : .failure
    }
}
