import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// `quotawatch clean ROOT`: the storage page of an app's data container. Lists by default;
/// deletes what `--yes` (or `--dry-run`) is told to, through the daemon serving ROOT when one
/// answers, else through a deleter of its own.
enum CleanCommand {
    static let subcommand = Subcommand(
        name: "clean",
        abstract: "List an app's storage by category, and delete what you name.",
        discussion: """
            Categories: leftovers (CFNetworkDownload_*.tmp), caches (each business directory in
            Library/Caches; one alone as caches:NAME), tmp, dyld (stale dyld caches), inbox
            (Documents/Inbox), webkit (WebKit's caches), plists (temporary plists in
            Library/Preferences), user-files (the rest of Documents, by kind: video, images,
            packages, pdf, office, archives, other). Sizes are allocated blocks, as the phone
            counts them. Nothing is deleted without --yes (or --dry-run, which lists exactly what
            --yes would remove) and a --category, --kind or --path naming what goes; --older-than
            and --larger-than narrow it. Your own files in Documents go only by --kind or --path:
            '--category user-files' alone is refused, and 'all' leaves them out. On a terminal
            without --yes, --dry-run, --json or --list, the page is interactive: space marks a
            category, business, kind or file, enter asks to delete what is marked, q quits.
            When a daemon serves ROOT, the numbers come from it and it deletes (it must run
            with --clean); otherwise this command crawls ROOT and deletes itself, with the
            same audit log.
            Exit status: 0 on success, 1 when the daemon or the deleter failed, 64 on bad usage.
            """,
        arguments: [ArgumentSpec(name: "root", help: "The app's data container.")],
        options: [
            OptionSpec(
                name: "--category", valueName: "<name>",
                help: "What to delete: a category, caches:NAME, or all (not your files). Repeatable."),
            OptionSpec(
                name: "--kind", valueName: "<kind>",
                help: "Your files of this kind: video, images, packages, pdf, office, archives, other. Repeatable."),
            OptionSpec(
                name: "--path", valueName: "<path>",
                help: "This file, or the files below this directory, as the listing writes it. Repeatable."),
            OptionSpec(
                name: "--older-than", valueName: "<age>", help: "Only files last modified longer ago (7d, 12h)."),
            OptionSpec(name: "--larger-than", valueName: "<size>", help: "Only files larger than this (1MB, 500KiB)."),
            OptionSpec(name: "--yes", help: "Delete what is named."),
            OptionSpec(name: "--dry-run", help: "List exactly what --yes would delete; delete nothing."),
            OptionSpec(name: "--json", help: "Print the page, or what was deleted, as one JSON object."),
            OptionSpec(name: "--list", help: "Print the page even on a terminal (no interactive selection)."),
        ] + RootOptions.byteFormatOptions + [
            OptionSpec(name: "--top", valueName: "<n>", help: "Files shown per kind of your files (default 5)."),
            OptionSpec(name: "--socket", valueName: "<path>", help: "The daemon's control socket (default: ROOT's)."),
            OptionSpec(
                name: "--config", valueName: "<file>",
                help: "Protect globs from this config when no daemon serves ROOT (the daemon uses its own)."),
            OptionSpec(
                name: "--timeout", valueName: "<s>",
                help: "Give up waiting for the daemon after this long (default 600)."),
        ],
        run: run)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitStatus {
        let root = try RootOptions.singleRoot(arguments, command: "clean")
        let format = try RootOptions.byteFormat(arguments, command: "clean")
        let timeout = try arguments.integer("--timeout", default: 600, in: 1...86_400, command: "clean")
        let top = try arguments.integer("--top", default: 5, in: 0...1_000_000, command: "clean")
        let selection: CleanSelection
        do {
            selection = try CleanSelection.parse(
                categories: arguments.allValues["--category"]?.map(\.bytes) ?? [],
                kinds: arguments.allValues["--kind"]?.map(\.bytes) ?? [],
                paths: arguments.allValues["--path"]?.map(\.bytes) ?? [],
                olderThan: arguments.values["--older-than"]?.bytes, largerThan: arguments.values["--larger-than"]?.bytes
            )
        } catch {
            throw UsageError(message: error.description, command: "clean")
        }
        if arguments.has("--yes") && arguments.has("--dry-run") {
            throw UsageError(
                message: "--yes deletes and --dry-run deletes nothing: give one of them (--dry-run first, to see what "
                    + "--yes would remove)",
                command: "clean")
        }
        let deleting = arguments.has("--yes") || arguments.has("--dry-run")
        if deleting && !selection.namesSomething {
            throw UsageError(
                message: "\(arguments.has("--yes") ? "--yes" : "--dry-run") deletes only what you name: add "
                    + "--category NAME (\(CleanCategory.names.filter { $0 != "user-files" }.joined(separator: ", ")), "
                    + "caches:NAME or all), --kind KIND or --path PATH",
                command: "clean")
        }
        let absolute = RootOptions.canonicalBytes(root.bytes)
        let explicitSocket = arguments.values["--socket"]?.bytes
        let socket = explicitSocket ?? SocketPath.defaultPath(forRoot: absolute)
        var output = CleanPageOutput(
            root: EscapedName.string(absolute), source: "daemon", engine: nil, format: format,
            nowNanoseconds: Saturating.int64((Date().timeIntervalSince1970 * 1e9).rounded(.down)), filesPerKind: top,
            removedShown: CappedList.limit(top: arguments.values["--top"] != nil ? top : nil))
        let json = arguments.has("--json")
        let dryRun = arguments.has("--dry-run")

        // The daemon's numbers when one serves ROOT; else a crawl of its own.
        var place: Place
        let items: [CleanItem]
        do {
            let reply = try ControlClient.request(
                socketPath: socket, ControlRequest(.cleanList), timeout: .seconds(timeout))
            let listing = try CleanListing.decode(reply)
            // Deleting through a daemon deletes in its root: it must be the one named.
            guard listing.root == output.root else {
                Console.failure(
                    "the daemon on \(EscapedName.string(socket)) watches \(listing.root), not \(output.root); "
                        + "name that root, or pass the --socket of the daemon that watches \(output.root)")
                return .failure
            }
            if arguments.values["--config"] != nil {
                Console.error(
                    Diagnostic.note(
                        "note: --config is not used: the daemon serving this root protects what its own config says")
                        + "\n")
            }
            output.engine = listing.engine
            items = listing.items
            place = .daemon(socket: socket, timeout: timeout)
        } catch ControlClientError.noDaemon where explicitSocket == nil {
            output.source = "crawl"
            let opened: FileDescriptor
            do {
                opened = try TreeScanner().openRoot(root.bytes).descriptor
            } catch {
                return RootOptions.report(error)
            }
            ResourceLimits.raiseOpenFileLimit()
            let crawled = CleanInventory.crawl(opened)
            for warning in crawled.warnings { Console.error(RootOptions.describe(warning, root: root)) }
            items = crawled.items
            place = .local(root: opened, stateDirectory: StateDirectory.forRoot(absolute), items: items)
        } catch {
            Console.failure("\(error)")
            return .failure
        }
        defer { if case .local(let opened, _, _) = place { opened.close() } }

        if deleting {
            return delete(
                selection, dryRun: dryRun, at: place, output, json: json, config: arguments.values["--config"])
        }
        let writers = OpenWritersSnapshot()
        let (offered, held) = CleanPlanner.offer(items) { item in
            // A /proc that cannot be read cannot rule a writer out: held back too.
            do {
                return try writers.check(FileIdentity(device: item.device, inode: item.inode)).writer != nil
            } catch {
                return true
            }
        }
        let page = CleanPlanner.page(narrowed(offered, by: selection, now: output.nowNanoseconds))
        let onTerminal = FileDescriptor(rawValue: 0).isTerminal && FileDescriptor.standardOutput.isTerminal
        let anything = page.contains { !$0.items.isEmpty }
        guard !json, !arguments.has("--list"), onTerminal, anything else {
            if json {
                Console.json(output.json(page, held: held))
            } else {
                Console.out(output.table(page, held: held))
                Console.out(CleanPageOutput.howToDelete(root: output.root))
            }
            return .success
        }
        switch CleanInteractive.pick(page, output: output) {
        case .quit:
            Console.out("Nothing was deleted.\n")
            return .success
        case .interrupted(let signal):
            Console.out("Nothing was deleted (\(TerminationSignals.name(signal))).\n")
            return ExitStatus(rawValue: 128 + signal)
        case .confirmed(var picked):
            // The page was narrowed by these; the marks stand within them.
            picked.olderThan = selection.olderThan
            picked.largerThan = selection.largerThan
            return delete(picked, dryRun: false, at: place, output, json: false, config: arguments.values["--config"])
        }
    }

    /// Where the page came from, and so who deletes.
    private enum Place {
        /// The daemon serving ROOT: it deletes, on its cleanup runner.
        case daemon(socket: [UInt8], timeout: Int)
        /// This command's own crawl of ROOT, open here: it deletes itself.
        case local(root: FileDescriptor, stateDirectory: [UInt8]?, items: [CleanItem])
    }

    /// The page narrowed to what the selection names, when it names or narrows anything.
    private static func narrowed(_ offered: [CleanItem], by selection: CleanSelection, now: Int64) -> [CleanItem] {
        guard selection.namesSomething || selection.olderThan != nil || selection.largerThan != nil else {
            return offered
        }
        var wide = selection
        if !wide.namesSomething { wide.categories = Set(CleanCategory.allCases) }
        if wide.kinds.isEmpty && !selection.namesSomething { wide.kinds = Set(UserFileKind.allCases) }
        return offered.filter { wide.selects($0, nowNanoseconds: now) }
    }

    private static func delete(
        _ selection: CleanSelection, dryRun: Bool, at place: Place, _ output: CleanPageOutput, json: Bool,
        config: CommandLineArgument?
    ) -> ExitStatus {
        let report: CleanDeletionReport
        switch place {
        case .daemon(let socket, let timeout):
            let request = ControlRequest(.cleanDelete(CleanDeleteRequest(selection: selection, dryRun: dryRun)))
            do {
                report = try CleanDeletionReport.decode(
                    try ControlClient.request(socketPath: socket, request, timeout: .seconds(timeout)))
            } catch {
                Console.failure("\(error)")
                return .failure
            }
        case .local(let root, let stateDirectory, let items):
            do {
                if let stateDirectory { try StateDirectory.checkTrusted(stateDirectory) }
            } catch {
                Console.failure("\(error)")
                return .failure
            }
            let protection: CleanupProtection
            switch self.protection(config?.bytes) {
            case .success(let built): protection = built
            case .failure(let failure):
                Console.failure("\(failure.description)")
                return failure.status
            }
            // The same planner as the daemon: open writers are the deleter's to check.
            let chosen = CleanPlanner.select(
                CleanPlanner.offer(items) { _ in false }.offered, selection, nowNanoseconds: output.nowNanoseconds)
            do {
                report = try ManualClean.runLocally(
                    root: root, items: chosen, protection: protection, stateDirectory: stateDirectory, dryRun: dryRun)
            } catch {
                Console.failure("\(error)")
                return .failure
            }
        }
        if json { Console.json(output.deletionJSON(report)) } else { Console.out(output.deletionText(report)) }
        return report.error == nil ? .success : .failure
    }

    /// What the deleter must keep when this command deletes by itself: the config's protect
    /// globs (with `--config`), and `Documents/` but for the inbox and the user files named.
    private static func protection(_ file: [UInt8]?) -> Result<CleanupProtection, RunPolicy.Failure> {
        var config = PolicyConfig()
        if let file {
            do {
                config = try RunPolicy.read(file)
            } catch {
                return .failure(error)
            }
        }
        return .success(CleanupProtection(config: config, profileApplies: true, extraGlobs: config.cleanup.protect))
    }
}
