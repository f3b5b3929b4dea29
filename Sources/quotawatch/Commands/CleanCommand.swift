import Foundation
import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTerminal

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
            '--category user-files' alone is refused, and 'all' leaves them out. --path takes
            any file or directory below ROOT, category or not, and removes it whole (with
            --older-than or --larger-than, only the page's files below it that pass); a path
            that does not exist, or selects nothing, is an error. On a terminal
            without --yes, --dry-run, --json or --list, the page is interactive: space marks a
            category, business, kind or file, enter asks to delete what is marked, q quits.
            When a daemon serves ROOT, the numbers come from it and it deletes (it must run
            with --clean); otherwise this command crawls ROOT and deletes itself, with the
            same audit log.
            Exit status: 0 on success, 1 when the daemon or the deleter failed, 64 on bad usage.
            """,
        arguments: [ArgumentSpec(name: "root", help: "The app's data container.")],
        options: Options.self, run: run)

    static let category = Option(
        "--category", value: "<name>",
        help: "What to delete: a category, caches:NAME, or all (not your files). Repeatable.", .word)
    static let kind = Option(
        "--kind", value: "<kind>",
        help: "Your files of this kind: video, images, packages, pdf, office, archives, other. Repeatable.", .word)
    static let path = Option(
        "--path", value: "<path>",
        help: "Any file or directory below ROOT, removed whole (category or not). Repeatable.", .word)
    static let olderThan = Option(
        "--older-than", value: "<age>", help: "Only files last modified longer ago (7d, 12h).", .word)
    static let largerThan = Option(
        "--larger-than", value: "<size>", help: "Only files larger than this (1MB, 500KiB).", .word)
    static let yes = Flag("--yes", help: "Delete what is named.")
    static let dryRun = Flag("--dry-run", help: "List exactly what --yes would delete; delete nothing.")
    static let json = Flag("--json", help: "Print the page, or what was deleted, as one JSON object.")
    static let list = Flag("--list", help: "Print the page even on a terminal (no interactive selection).")
    static let top = Option(
        "--top", value: "<n>", help: "Files shown per kind of your files (default 5).", .wholeNumber(in: 0...1_000_000))
    static let socket = DaemonAddressOptions.socket.described("The daemon's control socket (default: ROOT's).")
    static let config = RunPolicy.config.described(
        "Protect globs from this config when no daemon serves ROOT (the daemon uses its own).")
    static let timeout = CleanNowCommand.timeout.described(
        "Give up waiting for the daemon after this long (default 600).")

    struct Options: CommandOptions {
        static let declarations =
            [CleanCommand.category, CleanCommand.kind, CleanCommand.path, CleanCommand.olderThan].map(\.spec)
            + [CleanCommand.largerThan.spec]
            + [CleanCommand.yes, CleanCommand.dryRun, CleanCommand.json, CleanCommand.list].map(\.spec)
            + ByteFormatOptions.declarations
            + [CleanCommand.top.spec, CleanCommand.socket.spec, CleanCommand.config.spec, CleanCommand.timeout.spec]

        var root: CommandLineArgument
        var selection: CleanSelection
        var yes: Bool
        var dryRun: Bool
        var json: Bool
        var list: Bool
        var format: ByteFormatOptions
        var top: Int
        var topGiven: Bool
        var socket: CommandLineArgument?
        var config: CommandLineArgument?
        var timeout: Int

        init(_ arguments: ParsedArguments) throws(UsageError) {
            root = try arguments.single("root")
            format = ByteFormatOptions(arguments)
            timeout = try arguments.value(CleanCommand.timeout) ?? 600
            let top = try arguments.value(CleanCommand.top)
            self.top = top ?? 5
            topGiven = top != nil
            let categories = try arguments.values(CleanCommand.category).map(\.bytes)
            let kinds = try arguments.values(CleanCommand.kind).map(\.bytes)
            let paths = try arguments.values(CleanCommand.path).map(\.bytes)
            let olderThan = try arguments.value(CleanCommand.olderThan)?.bytes
            let largerThan = try arguments.value(CleanCommand.largerThan)?.bytes
            do {
                // The selection's own grammar, shared with the daemon's clean_delete request.
                selection = try CleanSelection.parse(
                    categories: categories, kinds: kinds, paths: paths, olderThan: olderThan, largerThan: largerThan)
            } catch {
                throw UsageError(message: error.description, command: arguments.command)
            }
            yes = arguments[CleanCommand.yes]
            dryRun = arguments[CleanCommand.dryRun]
            json = arguments[CleanCommand.json]
            list = arguments[CleanCommand.list]
            socket = try arguments.value(CleanCommand.socket)
            config = try arguments.value(CleanCommand.config)
        }

        func validate() throws(ValidationError) {
            try format.validate()
            if yes && dryRun {
                throw ValidationError(
                    "--yes deletes and --dry-run deletes nothing: give one of them (--dry-run first, to see what "
                        + "--yes would remove)")
            }
            if (yes || dryRun) && !selection.namesSomething {
                throw ValidationError(
                    "\(yes ? "--yes" : "--dry-run") deletes only what you name: add "
                        + "--category NAME (\(CleanCategory.names.filter { $0 != "user-files" }.joined(separator: ", ")), "
                        + "caches:NAME or all), --kind KIND or --path PATH")
            }
        }
    }

    static func run(_ given: Options) -> ExitStatus {
        let root = given.root
        let format = given.format.format
        let timeout = given.timeout
        let top = given.top
        let selection = given.selection
        let deleting = given.yes || given.dryRun
        let absolute = RootOptions.canonicalBytes(root.bytes)
        let explicitSocket = given.socket?.bytes
        let socket = explicitSocket ?? SocketPath.defaultPath(forRoot: absolute)
        var output = CleanPageOutput(
            root: EscapedName.string(absolute), source: "daemon", engine: nil, format: format,
            nowNanoseconds: Saturating.int64((Date().timeIntervalSince1970 * 1e9).rounded(.down)), filesPerKind: top,
            removedShown: CappedList.limit(top: given.topGiven ? top : nil))
        let json = given.json
        let dryRun = given.dryRun

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
            if given.config != nil {
                Console.error(
                    Diagnostic.note(
                        "note: --config is not used: the daemon serving this root protects what its own config says")
                        + "\n")
            }
            output.engine = listing.engine
            items = listing.items
            place = .daemon(socket: socket, timeout: timeout, items: items)
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
                selection, root: root, dryRun: dryRun, at: place, output, json: json, config: given.config)
        }
        let writers = OpenWritersSnapshot()
        let (offered, held) = ManualCleanPlanner.offer(items) { item in
            // A /proc that cannot be read cannot rule a writer out: held back too.
            do {
                return try writers.check(FileIdentity(device: item.device, inode: item.inode)).writer != nil
            } catch {
                return true
            }
        }
        let page = ManualCleanPlanner.page(narrowed(offered, by: selection, now: output.nowNanoseconds))
        var onTerminal = FileDescriptor(rawValue: 0).isTerminal && FileDescriptor.standardOutput.isTerminal
        let anything = page.contains { !$0.items.isEmpty }
        // A TERM curses cannot drive gets the page as lines, as a pipe does, saying why (last,
        // under the page, where it is seen).
        var noScreen: TerminalScreenError?
        if onTerminal, !json, !given.list, anything {
            noScreen = TerminalScreen.unknownTerminal(ProcessInfo.processInfo.environment["TERM"])
            if noScreen != nil { onTerminal = false }
        }
        guard !json, !given.list, onTerminal, anything else {
            if json {
                Console.json(output.json(page, held: held))
            } else {
                Console.out(output.table(page, held: held))
                Console.out(
                    CleanPageOutput.howToDelete(root: output.root, anyCategory: !offered.isEmpty || !held.isEmpty))
            }
            if let noScreen { Console.warning("\(noScreen); the page is printed instead of the interactive one") }
            return .success
        }
        switch CleanInteractive.pick(page, output: output) {
        case .quit:
            Console.out("Nothing was deleted.\n")
            return .success
        case .noScreen(let problem):
            Console.failure("\(problem)")
            return .failure
        case .interrupted(let signal):
            Console.out("Nothing was deleted (\(TerminationSignals.name(signal))).\n")
            return ExitStatus(rawValue: 128 + signal)
        case .confirmed(var picked):
            // The page was narrowed by these; the marks stand within them.
            picked.olderThan = selection.olderThan
            picked.largerThan = selection.largerThan
            return delete(picked, root: root, dryRun: false, at: place, output, json: false, config: given.config)
        }
    }

    /// Where the page came from, and so who deletes.
    private enum Place {
        /// The daemon serving ROOT: it deletes, on its cleanup runner.
        /// `items` is its page, for the progress bar's total.
        case daemon(socket: [UInt8], timeout: Int, items: [CleanItem])
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

    /// The paths the selection names, each as it leads now from ROOT (opened here when the
    /// daemon deletes: it resolves them again when it plans, this only checks them).
    private static func namedPaths(
        _ selection: CleanSelection, root: CommandLineArgument, at place: Place
    ) -> Result<[NamedPath], CleanSelectionError> {
        guard !selection.paths.isEmpty else { return .success([]) }
        switch place {
        case .local(let opened, _, _): return NamedPaths.resolve(selection.paths, root: opened)
        case .daemon:
            guard let opened = try? TreeScanner().openRoot(root.bytes).descriptor else { return .success([]) }
            defer { opened.close() }
            return NamedPaths.resolve(selection.paths, root: opened)
        }
    }

    /// A path named that nothing in the report lies at or below: it selected nothing (with
    /// `--older-than` or `--larger-than`, or a file that is on no page), which is an error.
    static func selectedNothing(_ paths: [[UInt8]], _ report: CleanDeletionReport) -> [UInt8]? {
        paths.first { path in
            !report.removed.contains { CleanSelection.covers(path, $0.path) }
                && !report.skipped.contains { CleanSelection.covers(path, $0.path) }
        }
    }

    private static func delete(
        _ selection: CleanSelection, root: CommandLineArgument, dryRun: Bool, at place: Place,
        _ output: CleanPageOutput, json: Bool, config: CommandLineArgument?
    ) -> ExitStatus {
        // A path named must lead somewhere, and not through a symlink: said before anything goes.
        let named: [NamedPath]
        switch namedPaths(selection, root: root, at: place) {
        case .success(let found): named = found
        case .failure(let failure):
            Console.failure(failure.description)
            return .failure
        }
        let report: CleanDeletionReport
        switch place {
        case .daemon(let socket, let timeout, let items):
            let request = ControlRequest(.cleanDelete(CleanDeleteRequest(selection: selection, dryRun: dryRun)))
            // As many as the daemon's planner will choose: the same filter on the same page.
            let total = ManualCleanPlanner.offer(items) { _ in false }.offered.count {
                selection.selects($0, nowNanoseconds: output.nowNanoseconds)
            }
            let bar = CleanProgressBar.start(
                socket: socket, total: total, format: output.format,
                enabled: !json && FileDescriptor.standardOutput.isTerminal && Console.errorIsTerminal)
            defer { bar?.finish() }
            do {
                report = try CleanDeletionReport.decode(
                    try ControlClient.request(socketPath: socket, request, timeout: .seconds(timeout)))
            } catch {
                bar?.finish()
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
            let (chosen, wholes) = NamedPaths.split(
                chosen: ManualCleanPlanner.select(
                    ManualCleanPlanner.offer(items) { _ in false }.offered, selection,
                    nowNanoseconds: output.nowNanoseconds),
                named: NamedPaths.removedWhole(selection) ? named : [], page: items)
            do {
                report = try ManualClean.runLocally(
                    root: root, items: chosen, named: wholes, protection: protection, stateDirectory: stateDirectory,
                    dryRun: dryRun)
            } catch {
                Console.failure("\(error)")
                return .failure
            }
        }
        if json { Console.json(output.deletionJSON(report)) } else { Console.out(output.deletionText(report)) }
        if report.error == nil, let path = selectedNothing(selection.paths, report) {
            let narrowing = selection.olderThan != nil || selection.largerThan != nil
            Console.failure(
                "--path '\(HumanText.name(path))' selected nothing"
                    + (narrowing
                        ? ": no file of the page below it passes --older-than/--larger-than (without them the path goes whole)"
                        : "; run 'quotawatch clean ROOT' or 'quotawatch status ROOT' to see what is there"))
            return .failure
        }
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
