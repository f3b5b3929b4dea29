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
        options: [
            OptionSpec(
                name: "--depth", valueName: "<n>",
                help: "Show directories down to this depth, or 'all' (default 1; with --json or --top, all)."),
            OptionSpec(
                name: "--top", valueName: "<n>", help: "Show only the n directories with the most allocated bytes."),
            OptionSpec(name: "--json", help: "Print the directories shown as one JSON object (see README)."),
        ] + RootOptions.byteFormatOptions + [
            OptionSpec(name: "--one-file-system", help: "Skip directories on other file systems (du -x)."),
            OptionSpec(
                name: "--workers", valueName: "<n>", help: "Crawler threads (default: one per core, at least 2)."),
        ] + PhoneStorageOptions.options,
        run: run)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitStatus {
        // Chosen as status chooses them: the same --depth and --top, the same defaults.
        let selection = try StatusCommand.selection(arguments, command: "scan")
        let workers = try arguments.integer(
            "--workers", default: CrawlOptions().workers, in: 1...256, command: "scan")
        let format = try RootOptions.byteFormat(arguments, command: "scan")
        let root = try RootOptions.singleRoot(arguments, command: "scan")
        let phone = try PhoneStorageOptions.measure(arguments, command: "scan")
        let options = CrawlOptions(workers: workers, oneFileSystem: arguments.has("--one-file-system"))
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
        if arguments.has("--json") {
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
