import Foundation
import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

/// One shape of the contract and its golden fixture (Tests/Fixtures/json/NAME.json): the type
/// both the writer and every reader use.
struct ContractShape: Sendable, CustomTestStringConvertible {
    var fixture: String
    var roundTrip: @Sendable ([UInt8]) throws -> [UInt8]

    static func of<Shape: Codable & SendableMetatype>(_ type: Shape.Type, _ fixture: String) -> ContractShape {
        ContractShape(fixture: fixture) { try ContractJSON.encode(ContractJSON.decode(Shape.self, from: $0)) }
    }

    /// A file of JSON lines (`history --json`), each line one `Shape`.
    static func lines<Shape: Codable & SendableMetatype>(_ type: Shape.Type, _ fixture: String) -> ContractShape {
        ContractShape(fixture: fixture) { bytes in
            let lines = try bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map {
                try ContractJSON.encode(ContractJSON.decode(Shape.self, from: $0))
            }
            return Array(lines.joined(separator: [0x0A]))
        }
    }

    var testDescription: String { fixture }
}

/// Each Codable shape's golden file read with its type and written again: the bytes come back
/// unchanged, so what a reader decodes is all the writer said (the other way,
/// ``GoldenJSONTests`` and the tests below encode from fixed inputs and compare with the file).
@Suite("Contract shapes: each golden file decodes and encodes back to itself")
struct ContractShapeGoldenTests {
    static let shapes: [ContractShape] =
        [
            .of(TreeReport.self, "scan"),
            .of(StatusReport.self, "status"),
            .of(StatusReport.self, "status-fanotify"),
            .of(StatusWire.self, "status-reply"),
            .of(QuotaStatus.self, "status-quotas"),
            .of(ControlRequest.self, "request-status"),
            .of(ControlRequest.self, "request-status-selection"),
            .of(ControlRequest.self, "request-status-quotas"),
            .of(ControlRequest.self, "request-clean"),
            .of(ControlRequest.self, "request-clean_list"),
            .of(ControlRequest.self, "request-events"),
            .of(ControlRequest.self, "request-register_cleaner"),
            .of(ControlRequest.self, "request-clean_delete"),
            .of(RegisteredCleanerContext.self, "registered-context"),
            .of(RegisteredCleanerContext.self, "registered-context-no_directory"),
            .of(RegisteredCleanerReplyLine.self, "registered-reply"),
            .of(RegisteredCleanerReplyLine.self, "registered-reply-error"),
            .of(CleanupProgressEvent.self, "event-cleanup_progress"),
            .of(CleanDeletionDocument.self, "reply-clean_delete"),
            .of(CleanDeletionDocument.self, "clean-deletion"),
            .of(CleanupSummaryDocument.self, "reply-clean"),
            .of(CleanupSummaryDocument.self, "event-cleanup"),
            .of(AuditRecordDocument.self, "audit-intent"),
            .of(AuditRecordDocument.self, "audit-outcome"),
            .of(DeletionEventDocument.self, "event-deletion"),
            .of(CommandCleanerContext.self, "command-context"),
            .of(CleanPageDocument.self, "clean"),
            .of(ControlRequest.self, "request-events-recent"),
            .of(ContractEvent.self, "event-subscribed-recent"),
            .of(VerificationReport.self, "verification"),
            .of(VerificationReport.self, "verification-first-pass"),
            .of(ConfigSummaryDocument.self, "check-config"),
            .of(ConfigSummaryDocument.self, "check-config-every-kind"),
            .of(CleanListDocument.self, "reply-clean_list"),
            .of(ControlErrorDocument.self, "reply-error"),
            .of(HistoryGrowthDocument.self, "history-growth"),
            .of(ServedRootsDocument.self, "status-roots"),
            .lines(ContractEvent.self, "history"),
        ] + eventKinds.map { .of(ContractEvent.self, $0) }

    /// Every event line of a kind ``ContractEvent`` reads as its own case.
    static let eventKinds = [
        "event-ready", "event-overflow", "event-resynced", "event-degraded", "event-root_gone", "event-config_error",
        "event-config_reloaded", "event-quota_warning", "event-quota_breach", "event-quota_ok", "event-level",
        "event-leftover", "event-leftover_gone", "event-quota_forecast", "event-hook_failed", "event-subscribed",
        "event-dropped", "event-registered", "event-history_dropped", "event-history_reset",
    ]

    @Test("each event kind's golden file reads as its own case, not as other fields", arguments: eventKinds)
    func eventKindIsTyped(_ fixture: String) throws {
        let url = GoldenFixture.directory.appendingPathComponent("\(fixture).json")
        let bytes = try #require(FileManager.default.contents(atPath: url.path).map(Array.init))
        let event = try ContractJSON.decode(ContractEvent.self, from: bytes)
        if case .other = event.payload { Issue.record("\(fixture) was read as other fields") }
        #expect("event-" + event.kind == fixture)
    }

    @Test("a kind this build does not know, or a known kind short of a field, reads as other fields and back")
    func unknownKinds() throws {
        for line in [
            #"{"event":"compaction","freed":3,"root":"/r","time":"2026-01-01T00:00:00.000Z"}"#,
            #"{"event":"level","from":"normal","root":"/r"}"#,
        ] {
            let event = try ContractJSON.decode(ContractEvent.self, from: Array(line.utf8))
            guard case .other(let kind, _) = event.payload else {
                Issue.record("\(line) read as \(event.payload)")
                continue
            }
            #expect(kind == event.kind && ContractJSON.encodedString(event) == line)
        }
    }

    @Test("decode, then encode, gives the golden bytes", arguments: shapes)
    func roundTrip(_ shape: ContractShape) throws {
        let url = GoldenFixture.directory.appendingPathComponent("\(shape.fixture).json")
        var bytes = try #require(FileManager.default.contents(atPath: url.path).map(Array.init))
        #expect(bytes.last == 0x0A)
        bytes.removeLast()
        let again = try shape.roundTrip(bytes)
        #expect(again == bytes, "\(String(decoding: again, as: UTF8.self))")
    }

    static let context = RegisteredCleanerContext(
        context: 7, cleaner: "feed", run: "4242-3",
        trigger: .quotaBreach(path: EscapedName.string(GoldenJSONTests.oddPath)),
        level: .warning, dryRun: false,
        directory: RegisteredCleanerContext.Directory(
            path: EscapedName.string(GoldenJSONTests.oddPath), size: .allocated, used: 1_523_712,
            effectiveLimit: 1_000_000, target: 779_999,
            tally: RegisteredCleanerContext.Tally(allocated: 1_523_712, apparent: 1_500_000, files: 12, dirs: 0)),
        candidates: [
            RegisteredCleanerContext.Candidate(
                path: EscapedName.string(GoldenJSONTests.oddPath) + "/a.bin", allocated: 131_072, apparent: 130_000,
                modifiedMilliseconds: 1_577_923_200_000, rule: "Caches/*")
        ])

    @Test("a registered cleaner's context, its replies, and cleanup_progress, from fixed inputs")
    func cleanerLines() throws {
        GoldenJSONTests.expectFixture(ContractJSON.encode(Self.context), "registered-context")
        var bare = Self.context
        bare.trigger = .appVersion(old: nil, new: "2.1")
        bare.directory = nil
        bare.candidates = []
        GoldenJSONTests.expectFixture(ContractJSON.encode(bare), "registered-context-no_directory")
        let reply = RegisteredCleanerReply(
            freedBytes: 131_072, removed: [GoldenJSONTests.oddPath + Array("/a.bin".utf8)])
        GoldenJSONTests.expectFixture(Array(reply.line(context: 7).dropLast()), "registered-reply")
        GoldenJSONTests.expectFixture(
            Array(RegisteredCleanerReply(error: "index locked").line(context: 7).dropLast()), "registered-reply-error")
        let progress = CleanupProgressReport(
            runID: "4242-3", trigger: .breach(path: GoldenJSONTests.oddPath), cleaner: "evict", removed: 1200,
            freedBytes: 49_152_000, answered: 1250, seconds: 1.23456, dryRun: false)
        GoldenJSONTests.expectFixture(
            EngineEvent.cleanupProgress(progress).jsonLine(root: GoldenJSONTests.root), "event-cleanup_progress")
    }

    static let intent = AuditRecordDocument.Intent(
        sequence: 12, run: "4242-3", path: EscapedName.string(GoldenJSONTests.oddPath), device: 2049,
        inode: 18_446_744_073_709_551_557, bytes: 131_072, kind: "file", rule: "Caches/*", trigger: "quota_breach",
        cleaner: "evict", time: GoldenJSONTests.time.iso8601)

    @Test("audit records, and the deletion event history files for them, from fixed inputs")
    func auditRecords() {
        GoldenJSONTests.expectFixture(ContractJSON.encode(AuditRecordDocument.intent(Self.intent)), "audit-intent")
        let outcome = AuditRecordDocument.Outcome(
            sequence: 12, run: "4242-3", path: Self.intent.path, result: "deleted", time: GoldenJSONTests.time.iso8601)
        GoldenJSONTests.expectFixture(ContractJSON.encode(AuditRecordDocument.outcome(outcome)), "audit-outcome")
        GoldenJSONTests.expectFixture(
            ContractJSON.encode(DeletionEventDocument(intent: Self.intent, result: "deleted")), "event-deletion")
    }

    @Test("history's own lines, from fixed inputs")
    func historyLines() {
        GoldenJSONTests.expectFixture(
            ContractJSON.encode(
                ContractEvent(
                    .historyDropped(dropped: 17), root: GoldenJSONTests.root, time: GoldenJSONTests.time.iso8601)),
            "event-history_dropped")
        GoldenJSONTests.expectFixture(
            ContractJSON.encode(
                ContractEvent(
                    .historyReset(movedTo: "/var/lib/quotawatch/root-1a2b/history.db.corrupt-1", reason: "malformed"),
                    root: GoldenJSONTests.root, time: GoldenJSONTests.time.iso8601)),
            "event-history_reset")
    }

    @Test("a command cleaner's context, from fixed inputs")
    func commandContext() {
        let context = CommandCleanerContext(
            trigger: "quota_breach", level: .warning, dryRun: false, run: "4242-3", root: GoldenJSONTests.root,
            candidates: [.init(path: Self.intent.path + "/a.bin", allocated: 131_072, rule: "Caches/*")],
            path: Self.intent.path, used: 1_523_712, effectiveLimit: 1_000_000, target: 779_999)
        GoldenJSONTests.expectFixture(ContractJSON.encode(context), "command-context")
    }

    @Test("what the Swift client reads is what the daemon wrote; what the daemon reads, the client's reply")
    func readersUseTheShapes() throws {
        let line = ContractJSON.encode(Self.context)
        guard case .context(let read) = RegisteredCleanerConnection.message(line) else {
            Issue.record("not read as a context")
            return
        }
        #expect(read == Self.context)
        let reply = RegisteredCleanerReply(freedBytes: 10, removed: [GoldenJSONTests.oddPath + Array("/a.bin".utf8)])
        let result = try RegisteredCleanerWire.decodeReply(
            Array(reply.line(context: 7).dropLast()), paths: [GoldenJSONTests.oddPath]
        ).get()
        #expect(result.removed.map(\.path) == [GoldenJSONTests.oddPath + Array("/a.bin".utf8)])
        #expect(ContractLineHead.read(reply.line(context: 7))?.context == 7)
    }
}
