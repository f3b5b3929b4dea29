import QuotaWatchCore
import QuotaWatchEngine
import Testing

@testable import quotawatch

/// Words to typed options, in-process: the pure half of every subcommand. Nothing here
/// touches the file system or a daemon.
@Suite("command lines parsed into options")
struct CommandOptionsTests {
    private func words(_ texts: [String]) -> [CommandLineArgument] { texts.map { CommandLineArgument($0) } }

    private func usageError(_ message: String, _ body: () throws -> Void) {
        #expect {
            try body()
        } throws: { error in
            guard let usage = error as? UsageError else { return false }
            return usage.message.contains(message)
        }
    }

    @Test("scan: values in their types, the defaults of earlier versions")
    func scan() throws {
        let options = try ScanCommand.Options.parse(
            words(["/data", "--depth=all", "--top", "3", "--bytes", "--workers", "8", "--ios-version", "16"]),
            command: "scan")
        #expect(options.root.text == "/data")
        #expect(options.selection.selection(json: false) == TreeSelection(depth: nil, top: 3))
        #expect(options.format.format == .bytes && options.workers == 8 && !options.oneFileSystem)
        #expect(options.phone?.version == IOSVersion(major: 16) && options.phone?.bundle == nil)

        let plain = try ScanCommand.Options.parse(words(["/data"]), command: "scan")
        #expect(plain.selection.selection(json: false).depth == 1 && plain.selection.selection(json: true).depth == nil)
        #expect(plain.phone == nil && plain.format.format == .decimal)
    }

    @Test(
        "status: alone it lists the roots served; a question about one must name it; tree rows do not go with --quotas")
    func status() throws {
        let options = try StatusCommand.Options.parse(
            words(["--socket", "/run/x.sock", "--path", "Library", "--sync"]), command: "status")
        #expect(options.address.socketPath == Array("/run/x.sock".utf8))
        #expect(options.selection.selection(json: false).subtree == Array("Library".utf8))
        #expect(options.sync && options.timeout == 60)
        #expect(try StatusCommand.Options.parse([], command: "status").listsRoots)
        #expect(try StatusCommand.Options.parse(words(["--json"]), command: "status").listsRoots)
        usageError("Name the watched root or its socket") {
            _ = try StatusCommand.Options.parse(words(["--sync"]), command: "status")
        }
        usageError("Name the watched root or its socket") {
            _ = try StatusCommand.Options.parse(words(["--quotas"]), command: "status")
        }
        usageError("'--depth' selects tree rows") {
            _ = try StatusCommand.Options.parse(words(["r", "--quotas", "--depth", "2"]), command: "status")
        }
        usageError("'--ios' shows the tree's totals") {
            _ = try StatusCommand.Options.parse(words(["r", "--quotas", "--ios"]), command: "status")
        }
        usageError("Choose one of '--iec' and '--bytes'") {
            _ = try StatusCommand.Options.parse(words(["r", "--iec", "--bytes"]), command: "status")
        }
    }

    @Test("run: policy options in QuotaWatchPolicy's grammars, read by the same parser")
    func runPolicy() throws {
        let options = try RunCommand.Options.parse(
            words([
                "/data", "--quota", "Caches/*=200MB", "--quota=tmp=1GiB", "--leftover-after", "15m",
                "--level-free", "10%,5GB", "--hook", "level=notify-send x", "--history-keep", "2d",
            ]), command: "run")
        let overrides = options.engine.policy.overrides
        #expect(overrides.quotas.map(\.limit) == [200_000_000, 1 << 30])
        #expect(overrides.leftoverAge == .seconds(900))
        #expect(overrides.levelFree?.warning == .share(0.1) && overrides.levelFree?.critical == .bytes(5_000_000_000))
        #expect(overrides.hooks.map(\.events) == [["level"]])
        #expect(options.engine.history.keep == .seconds(2 * 86_400))
        #expect(options.engine.given == ["--quota", "--leftover-after", "--level-free", "--hook", "--history-keep"])
        usageError("invalid value 'x' for '--quota'") {
            _ = try RunCommand.Options.parse(words(["/data", "--quota", "x"]), command: "run")
        }
        usageError("--no-history turns history off; --history-sample is for history") {
            _ = try RunCommand.Options.parse(
                words(["/data", "--no-history", "--history-sample", "1m"]), command: "run")
        }
    }

    @Test("run --backend: auto unless named, one of auto, inotify, fanotify")
    func backend() throws {
        #expect(try RunCommand.Options.parse(words(["/data"]), command: "run").engine.backend == .auto)
        for backend in BackendChoice.allCases {
            let options = try RunCommand.Options.parse(words(["/data", "--backend", backend.rawValue]), command: "run")
            #expect(options.engine.backend == backend)
        }
        let watch = try WatchCommand.Options.parse(words(["/data", "--backend=fanotify"]), command: "watch")
        #expect(watch.engine.backend == .fanotify)
        usageError("Unknown backend 'dnotify' for --backend: use auto, inotify or fanotify") {
            _ = try RunCommand.Options.parse(words(["/data", "--backend", "dnotify"]), command: "run")
        }
    }

    @Test("every value given is checked, and the last one wins")
    func repeatedValues() throws {
        #expect(
            try ScanCommand.Options.parse(words(["r", "--workers", "2", "--workers", "5"]), command: "scan").workers
                == 5)
        usageError("Invalid value 'x' for '--workers'") {
            _ = try ScanCommand.Options.parse(words(["r", "--workers", "x", "--workers", "5"]), command: "scan")
        }
    }

    @Test("clean: --yes with --dry-run, and deleting without naming what, are refused by validate")
    func clean() throws {
        let options = try CleanCommand.Options.parse(
            words(["/app", "--category", "tmp", "--kind", "video", "--dry-run", "--top", "2"]), command: "clean")
        #expect(options.selection.categories == [.tmp] && options.selection.kinds == [.video])
        #expect(options.dryRun && options.top == 2 && options.topGiven && options.timeout == 600)
        usageError("--yes deletes and --dry-run deletes nothing") {
            _ = try CleanCommand.Options.parse(words(["/app", "--path", "a", "--yes", "--dry-run"]), command: "clean")
        }
        usageError("--yes deletes only what you name") {
            _ = try CleanCommand.Options.parse(words(["/app", "--yes"]), command: "clean")
        }
    }

    @Test("clean-now and history: typed values, rules between them")
    func cleanNowAndHistory() throws {
        let now = try CleanNowCommand.Options.parse(
            words(["--socket", "s", "--trigger", "nightly"]), command: "clean-now")
        #expect(now.trigger == "nightly" && now.top == nil && now.timeout == 600)
        usageError("Invalid value '-1' for '--top'") {
            _ = try CleanNowCommand.Options.parse(words(["--socket", "s", "--top", "-1"]), command: "clean-now")
        }
        let history = try HistoryCommand.Options.parse(
            words(["/data", "--event", "quota_breach,level", "--event", "deletion"]), command: "history")
        #expect(history.kinds == ["quota_breach", "level", "deletion"])
        usageError("--path and --event select events; --growth shows samples only") {
            _ = try HistoryCommand.Options.parse(
                words(["/data", "--growth", ".", "--event", "level"]), command: "history")
        }
    }
}
