import Foundation
import QuotaWatchHistory
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

@Suite("audit log import: every deletion once, across restarts and rotation")
struct AuditImportTests {
    static func intent(_ run: String, _ seq: Int, _ path: String) -> String {
        "{\"bytes\":4096,\"cleaner\":\"evict\",\"device\":1,\"inode\":\(1000 + seq),\"kind\":\"file\",\"path\":\"\(path)\","
            + "\"record\":\"intent\",\"rule\":\"Caches/*\",\"run\":\"\(run)\",\"seq\":\(seq),"
            + "\"time\":\"2026-12-01T10:00:0\(seq % 10).000Z\",\"trigger\":\"quota_breach\"}\n"
    }

    static func outcome(_ run: String, _ seq: Int, _ result: String) -> String {
        "{\"path\":\"x\",\"record\":\"outcome\",\"result\":\"\(result)\",\"run\":\"\(run)\",\"seq\":\(seq),"
            + "\"time\":\"2026-12-01T10:00:09.000Z\"}\n"
    }

    private func append(_ tree: TempTree, _ name: TreePath, _ text: String) throws {
        let path = tree.absolutePath(name)
        guard let handle = FileHandle(forWritingAtPath: path) else {
            try tree.writeFile(name, contents: Array(text.utf8))
            return
        }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    private func deletions(_ store: HistoryStore) throws -> [(path: String, result: String)] {
        try store.events(HistoryFilter(kinds: ["deletion"])).map { event in
            let object = try JSONSerialization.jsonObject(with: Data(event.line.utf8)) as? [String: Any] ?? [:]
            return (event.path ?? "", object["result"] as? String ?? "")
        }
    }

    @Test("intents become deletion events, outcomes set their result; a second import adds nothing")
    func importsOnce() throws {
        let state = try TempTree(prefix: "qw-audit-import")
        let store = try HistoryStore(writingTo: Array(state.absolutePath("history.sqlite").utf8))
        let audit = AuditImport(stateDirectory: Array(state.rootPath.utf8))
        try append(
            state, "audit.jsonl",
            Self.intent("7-1", 1, "Caches/a/f1") + Self.outcome("7-1", 1, "removed")
                + Self.intent("7-1", 2, "Caches/a/f2"))
        #expect(try audit.run(into: store) == 3)
        var rows = try deletions(store)
        #expect(rows.map(\.path) == ["Caches/a/f1", "Caches/a/f2"])
        #expect(rows.map(\.result) == ["removed", "pending"])

        // A torn record (a crash mid-append) waits until its line ends.
        try append(state, "audit.jsonl", Self.outcome("7-1", 2, "skipped: changed") + "{\"record\":\"int")
        #expect(try audit.run(into: store) == 1)
        #expect(try audit.run(into: store) == 0)
        rows = try deletions(store)
        #expect(rows.map(\.result) == ["removed", "skipped: changed"])

        // A fresh store over the same audit log (a reset) imports everything again, once.
        let second = try HistoryStore(writingTo: Array(state.absolutePath("other.sqlite").utf8))
        try audit.run(into: second)
        try audit.run(into: second)
        #expect(try deletions(second).count == 2)
    }

    @Test("after rotation the rest of the rotated file and the new one are imported, nothing twice")
    func rotation() throws {
        let state = try TempTree(prefix: "qw-audit-import")
        let store = try HistoryStore(writingTo: Array(state.absolutePath("history.sqlite").utf8))
        let audit = AuditImport(stateDirectory: Array(state.rootPath.utf8))
        try append(state, "audit.jsonl", Self.intent("9-1", 1, "tmp/a"))
        try audit.run(into: store)
        // More is written, then the log rotates (a rename) and a new file starts.
        try append(state, "audit.jsonl", Self.outcome("9-1", 1, "removed") + Self.intent("9-1", 2, "tmp/b"))
        try state.rename("audit.jsonl", to: "audit.jsonl.1")
        try append(state, "audit.jsonl", Self.outcome("9-1", 2, "removed") + Self.intent("9-2", 3, "tmp/c"))
        try audit.run(into: store)
        try audit.run(into: store)
        let rows = try deletions(store)
        #expect(rows.map(\.path) == ["tmp/a", "tmp/b", "tmp/c"])
        #expect(rows.map(\.result) == ["removed", "removed", "pending"])
    }

    @Test("a run kept in more rotated files than the log keeps by default is imported whole")
    func manyRotatedFiles() throws {
        let state = try TempTree(prefix: "qw-audit-import")
        let store = try HistoryStore(writingTo: Array(state.absolutePath("history.sqlite").utf8))
        // Twelve rotated files of one run (the log keeps them while the run goes on), oldest `.12`.
        for generation in stride(from: 12, through: 1, by: -1) {
            try append(
                state, TreePath(components: [Array("audit.jsonl.\(generation)".utf8)]),
                Self.intent("9-1", 13 - generation, "tmp/\(13 - generation)"))
        }
        try append(state, "audit.jsonl", Self.intent("9-1", 13, "tmp/13"))
        try AuditImport(stateDirectory: Array(state.rootPath.utf8)).run(into: store)
        #expect(Set(try deletions(store).map(\.path)) == Set((1...13).map { "tmp/\($0)" }))
    }

    @Test("no audit log: nothing to import")
    func noLog() throws {
        let state = try TempTree(prefix: "qw-audit-import")
        let store = try HistoryStore(writingTo: Array(state.absolutePath("history.sqlite").utf8))
        #expect(try AuditImport(stateDirectory: Array(state.rootPath.utf8)).run(into: store) == 0)
    }
}
