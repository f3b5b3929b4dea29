import Foundation
import QuotaWatchSystem
import Synchronization
import Testing

/// One concurrency vocabulary: every thread the daemon and the CLI start is a
/// ``JoinableThread`` (joined at the end, and reached by a test's armed ``FaultPlan``), state
/// of one thread is a ``ThreadBound``, and a blocking queue is a ``BlockingState``.
@Suite("threads: one vocabulary, checked")
struct ThreadVocabularyTests {
    /// Ways to start work elsewhere than on a JoinableThread.
    private static let otherIdioms = [
        #"\bThread\s*\{"#, #"\bThread\("#, "detachNewThread", #"Task\.detached"#, #"\bTask\s*\{"#, "DispatchQueue",
        "pthread_create", #"\.async\s*\{"#,
    ]

    /// The files allowed one, each with its reason.
    private static let allowed: [String: String] = [
        // The one place a thread is made.
        "QuotaWatchSystem/Threads/JoinableThread.swift": "JoinableThread itself"
    ]

    private static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("no source file starts a thread, a task or a queue of its own, outside the allowed places")
    func noOtherThreadIdioms() throws {
        let patterns = try Self.otherIdioms.map { try Regex($0) }
        var offenders: [String] = []
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path))
        var scanned = 0
        for case let file as String in files where file.hasSuffix(".swift") {
            // The tree generator is a benchmark tool, not part of what runs beside a tree.
            guard !file.hasPrefix("quotawatch-treegen/"), Self.allowed[file] == nil else { continue }
            scanned += 1
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                if patterns.contains(where: { code.contains($0) }) {
                    offenders.append("\(file):\(number + 1): \(code)")
                }
            }
        }
        #expect(scanned > 100, "the scan found \(scanned) files under \(Self.sources.path)")
        #expect(offenders.isEmpty, "start a JoinableThread instead:\n\(offenders.joined(separator: "\n"))")
    }

    @Test("the allowed places still need their allowance (an entry nobody needs goes)")
    func allowancesAreUsed() throws {
        let patterns = try Self.otherIdioms.map { try Regex($0) }
        for file in Self.allowed.keys.sorted() {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            #expect(patterns.contains { text.contains($0) }, "\(file) no longer starts work elsewhere")
        }
    }
}

@Suite("ThreadBound: one thread's state, checked on every access")
struct ThreadBoundTests {
    @Test("the thread that first touches it keeps it: every access there sees every change")
    func ownerKeepsIt() {
        let box = ThreadBound([Int](), name: "a test's list")
        let counted = Atomic<Int>(0)
        JoinableThread(name: "owner") {
            for number in 1...100 { box.withValue { $0.append(number) } }
            counted.store(box.withValue { $0.reduce(0, +) }, ordering: .relaxed)
        }.join()
        #expect(counted.load(ordering: .relaxed) == 5050)
    }

    @Test("a second thread touching it stops the process")
    func secondThreadStops() async {
        await #expect(processExitsWith: .failure) {
            let box = ThreadBound(0, name: "a test's counter")
            box.withValue { $0 += 1 }
            JoinableThread(name: "intruder") { box.withValue { $0 += 1 } }.join()
        }
    }
}
