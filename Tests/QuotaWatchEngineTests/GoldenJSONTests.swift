import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

/// Every shape docs/json.md documents, built in-process from fixed inputs and compared byte
/// for byte with Tests/Fixtures/json/NAME.json (``GoldenFixture``): the contract scripts and
/// the CLI's client side parse. Paths hold a byte that is not UTF-8 and a backslash, so the
/// one escaping (``EscapedName``) is pinned in every shape that carries a name.
@Suite("GoldenJSON: each documented shape, byte for byte")
struct GoldenJSONTests {
    static let root = "/abs/root"
    /// `Caches/caf` 0xE9 `\x`: escaped `Caches/caf\xe9\\x`.
    static let oddPath: [UInt8] = Array("Caches/caf".utf8) + [0xE9] + Array("\\x".utf8)
    static let time = WallTime(millisecondsSinceEpoch: 1_764_650_000_123)
    static let engine = EngineReport(
        events: 393, rescannedDirectories: 2, overflows: 1, watches: 49, degraded: ["Library/Deep"],
        requests: 12, cpuSeconds: 0.021, backend: "inotify", backendReason: "--backend auto: inotify")

    static let rows = [
        DirectoryRow(
            path: [], tally: Tally(usage: Usage(allocated: 32_628_736, apparent: 25_440_742), files: 3000, dirs: 52)),
        DirectoryRow(
            path: oddPath, tally: Tally(usage: Usage(allocated: 1_925_120, apparent: 1_849_937), files: 36, dirs: 5)),
    ]

    static func expectFixture(_ document: [UInt8], _ name: String) {
        let mismatch = GoldenFixture.mismatch(document, name)
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }

    static func expectFixture(_ document: String, _ name: String) {
        expectFixture(Array(document.utf8), name)
    }

    @Test("scan --json and status --json")
    func scanAndStatus() {
        let tree = TreeReport(root: Self.root, directories: Self.rows.map(\.report))
        Self.expectFixture(ContractJSON.encode(tree), "scan")
        Self.expectFixture(StatusReport(tree: tree, engine: Self.engine).encodedJSON(), "status")
        let snapshot = StatusSnapshot(root: Self.root, rows: Self.rows, engine: Self.engine, files: [Self.rows[1]])
        Self.expectFixture(snapshot.wireJSON(), "status-reply")
    }

    @Test("status --json under fanotify: marks and directories, no watches")
    func statusUnderFanotify() throws {
        let tree = TreeReport(root: Self.root, directories: Self.rows.map(\.report))
        let engine = EngineReport(
            events: 393, rescannedDirectories: 2, overflows: 1, watches: 49, degraded: ["Library/Deep"],
            requests: 12, cpuSeconds: 0.021, backend: "fanotify", backendReason: "--backend fanotify",
            fanotify: (marks: 1, directories: 49))
        Self.expectFixture(StatusReport(tree: tree, engine: engine).encodedJSON(), "status-fanotify")
        let decoded = try ContractJSON.decode(
            StatusReport.self, from: StatusReport(tree: tree, engine: engine).encodedJSON())
        #expect(decoded.engine.marks == 1 && decoded.engine.directories == 49 && decoded.engine.watches == 49)
    }

    @Test("the status reply decodes into the rows it was made of")
    func statusReplyRoundTrip() throws {
        let snapshot = StatusSnapshot(root: Self.root, rows: Self.rows, engine: Self.engine)
        let report = try StatusWire.report(from: snapshot.wireJSON())
        #expect(report == snapshot.report)
        #expect(report.directories[1].path == #"Caches/caf\xe9\\x"#)
    }

    static let quotas = QuotaStatus(
        root: root,
        level: QuotaStatus.Level(level: .warning, free: 76_246_360_064, total: 270_553_174_016, rootAllocated: 573_440),
        quotas: [
            QuotaStatus.Row(
                path: EscapedName.string(oddPath), rule: "Caches/*", size: .allocated, used: 258_048, limit: 200_000,
                effectiveLimit: 100_000, state: .breach, secondsSinceChange: 0.3964, bytesPerSecond: 1024.5,
                secondsToBreach: nil),
            QuotaStatus.Row(
                path: "Documents", rule: "Documents", size: .apparent, used: nil, limit: 50_000_000,
                effectiveLimit: 25_000_000, state: .ok, secondsSinceChange: nil, bytesPerSecond: 0,
                secondsToBreach: 600),
        ])

    @Test("status --quotas --json, and it decodes with the same type")
    func quotaStatus() throws {
        Self.expectFixture(Self.quotas.encodedJSON(), "status-quotas")
        let decoded = try QuotaStatus.decode(Self.quotas.encodedJSON())
        #expect(decoded.quotas.map(\.state) == [.breach, .ok] && decoded.level.level == .warning)
    }

    static let engineEvents: [(String, EngineEvent)] = [
        (
            "event-ready",
            .ready(
                directories: 52, files: 3000, allocated: 32_628_736, seconds: 0.25, backend: "inotify",
                backendReason: "--backend auto: inotify")
        ),
        ("event-overflow", .overflow),
        ("event-resynced", .resynced(directories: 52, seconds: 1.0625)),
        (
            "event-degraded",
            .degraded(
                paths: [EscapedName.string(oddPath)], watchesNeeded: 9000, maxUserWatches: 8192,
                message: "watch limit reached")
        ),
        ("event-root_gone", .rootGone(message: "ROOT was removed")),
        ("event-config_error", .configError(message: "quotas[0].limit: 'ten' is not a size", time: time.iso8601)),
        ("event-config_reloaded", .configReloaded(quotas: 3, budgets: 1, time: time.iso8601)),
        ("event-cleanup", .cleanup(cleanupSummary)),
    ]

    @Test("each engine event line")
    func engineEventLines() {
        for (name, event) in Self.engineEvents { Self.expectFixture(event.jsonLine(root: Self.root), name) }
    }

    static let policyEvents: [(String, PolicyEvent.Detail)] = [
        (
            "event-quota_warning",
            .quota(
                state: .warning, path: oddPath, used: 170_000, size: .allocated, limit: 200_000,
                effectiveLimit: 200_000, rule: "Caches/*", level: .normal)
        ),
        (
            "event-quota_breach",
            .quota(
                state: .breach, path: oddPath, used: 258_048, size: .apparent, limit: 200_000,
                effectiveLimit: 100_000, rule: "Caches/*", level: .critical)
        ),
        (
            "event-quota_ok",
            .quota(
                state: .ok, path: oddPath, used: 4096, size: .allocated, limit: 200_000, effectiveLimit: 200_000,
                rule: "Caches/*", level: .normal)
        ),
        (
            "event-level",
            .level(from: .normal, to: .warning, free: 1_000_000, total: 270_553_174_016, rootAllocated: 573_440)
        ),
        ("event-leftover", .leftover(path: oddPath, allocated: 8192, idle: .seconds(86_400), rule: "tmp/**")),
        ("event-leftover_gone", .leftoverGone(path: oddPath, rule: "tmp/**", reason: .written)),
        (
            "event-quota_forecast",
            .forecast(path: oddPath, secondsToBreach: 3600.4567, bytesPerSecond: 12.5, rule: "Caches/*")
        ),
        (
            "event-hook_failed",
            .hookFailed(
                hook: "/usr/local/bin/alert", failedEvent: "quota_breach", status: 2, signal: nil,
                standardErrorTail: "no route to host\n")
        ),
    ]

    @Test("each policy event line")
    func policyEventLines() {
        for (name, detail) in Self.policyEvents {
            let event = PolicyEvent(detail, time: Self.time)
            Self.expectFixture(PolicyJSON.object(event.fields(root: Self.root)).encoded, name)
        }
    }

    @Test("the events stream's own lines, and a registered cleaner's greeting")
    func streamLines() throws {
        Self.expectFixture(ControlEventFeed(capacity: 4096, root: Self.root).subscribedLine, "event-subscribed")
        Self.expectFixture(
            ControlEventFeed(capacity: 4096, root: Self.root).subscribedLine(recent: 2), "event-subscribed-recent")
        Self.expectFixture(ControlEventFeed.droppedLine(17, root: Self.root), "event-dropped")
        let registration = RegisteredCleaners.Registration(
            id: 1, name: "feed", paths: [Self.oddPath], requestedTimeout: nil)
        Self.expectFixture(RegisteredCleanerGreeting.line(registration, timeout: .seconds(10)), "event-registered")
    }

    static var cleanupSummary: CleanupSummary {
        var removed = CleanerReport(name: "evict")
        removed.removed = [RemovedItem(path: oddPath, freedBytes: 131_072)]
        removed.skipped = [SkippedItem(path: Array("Caches/open.db".utf8), reason: "open for writing by pid 42")]
        var failed = CleanerReport(name: "feed")
        failed.error = "timed out after 10.0 seconds"
        return CleanupSummary(
            runID: "4242-3", triggers: [.breach(path: oddPath), .manual("clean-now")], cleaners: [removed, failed],
            seconds: 0.0425, dryRun: false, time: time)
    }

    static let requests: [(String, ControlRequest)] = [
        ("request-status", ControlRequest(.status(.tree(TreeSelection())))),
        (
            "request-status-selection",
            ControlRequest(.status(.tree(TreeSelection(subtree: oddPath, depth: 1, top: 10, files: 5))), sync: true)
        ),
        ("request-status-quotas", ControlRequest(.status(.quotas), sync: true)),
        ("request-clean", ControlRequest(.clean(CleanupRunRequest(trigger: "clean-now", dryRun: true)))),
        ("request-clean_list", ControlRequest(.cleanList)),
        ("request-events", ControlRequest(.events(recent: 0))),
        ("request-events-recent", ControlRequest(.events(recent: 200))),
        (
            "request-register_cleaner",
            ControlRequest(
                .registerCleaner(RegisterCleanerRequest(name: "feed", paths: [oddPath], timeout: .seconds(10))))
        ),
    ]

    @Test("each control request, and each decodes back to itself")
    func controlRequests() throws {
        for (name, request) in Self.requests {
            var line = request.encodedLine()
            #expect(line.last == UInt8(ascii: "\n"))
            line.removeLast()
            Self.expectFixture(line, name)
            #expect(try ControlProtocol.decodeRequest(line).get() == request, "\(name)")
        }
        let selection = try CleanSelection.parse(
            categories: [Array("caches".utf8)], kinds: [], paths: [Array(EscapedName.string(Self.oddPath).utf8)],
            olderThan: Array("7d".utf8),
            largerThan: Array("1M".utf8))
        var delete = ControlRequest(.cleanDelete(CleanDeleteRequest(selection: selection, dryRun: true))).encodedLine()
        delete.removeLast()
        Self.expectFixture(delete, "request-clean_delete")
    }

    @Test("the error reply")
    func errorReply() {
        Self.expectFixture(ControlProtocol.errorDocument("unknown command 'stat'"), "reply-error")
    }

    @Test("clean_list and clean_delete replies (clean --json's daemon side), clean-now's summary")
    func cleanReplies() throws {
        let path = Array("Library/Caches/com.example/".utf8) + [0xFF] + Array("blob".utf8)
        let classification = try #require(CleanClassifier.classify(path))
        let item = CleanItem(
            path: path, classification: classification, device: 2049, inode: 77, linkCount: 1,
            allocatedBytes: 8192, apparentBytes: 5000, modifiedNanoseconds: 1_764_650_000_123_456_789)
        let listing = CleanListing(root: Self.root, items: [item], engine: Self.engine)
        Self.expectFixture(listing.replyJSON(), "reply-clean_list")
        #expect(try CleanListing.decode(listing.replyJSON()).items.map(\.path) == [path])
        var result = CleanupResult()
        result.removed = [RemovedItem(path: path, freedBytes: 8192)]
        result.skipped = [SkippedItem(path: Self.oddPath, reason: "open for writing by pid 42")]
        let deletion = CleanDeletionReport(run: "4242-4", dryRun: false, result: result)
        Self.expectFixture(deletion.replyJSON(), "reply-clean_delete")
        #expect(try CleanDeletionReport.decode(deletion.replyJSON()) == deletion)
        Self.expectFixture(Self.cleanupSummary.jsonLine, "reply-clean")
        let read = try CleanupSummaryDocument.decode(Array(Self.cleanupSummary.jsonLine.utf8))
        #expect(read.run == "4242-3" && read.freed == 131_072 && read.seconds == 0.043 && !read.dryRun)
        #expect(read.cleaners.map(\.name) == ["evict", "feed"] && read.cleaners[0].paths == [#"Caches/caf\xe9\\x"#])
        #expect(read.cleaners[1].error == "timed out after 10.0 seconds")
    }

    @Test("check-config --json of the default config")
    func checkConfig() {
        Self.expectFixture(ContractJSON.encodedString(ConfigSummary.document(PolicyConfig())), "check-config")
    }
}
