import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@testable import QuotaWatchEngine

/// Keeps every snapshot the exporter publishes, and wakes a waiting test.
private final class PublishedSnapshots: Sendable {
    private let snapshots = BlockingState<[MetricsSnapshot]>([])

    func add(_ snapshot: MetricsSnapshot) {
        snapshots.withLockWakingWaiters { $0.append(snapshot) }
    }

    /// The first snapshot that satisfies `condition`, waiting up to 60 s for it.
    func first(where matches: (MetricsSnapshot) -> Bool) -> MetricsSnapshot? {
        snapshots.wait(until: .now + .seconds(60)) { $0.first(where: matches) }
    }
}

@Suite("Metrics exporter")
struct MetricsExporterTests {
    @Test("the engine's snapshot: root and top-level sizes as du counts them, quota rows, level, counted events")
    func snapshotFollowsTheEngine() throws {
        let tree = try TempTree(prefix: "qw-metrics")
        try tree.makeDirectory("root")
        try tree.makeDirectory("root/cache")
        try tree.makeDirectory("root/docs")
        try tree.writeFile("root/cache/a", byteCount: 40_000)
        try tree.writeFile("root/docs/b", byteCount: 10_000)
        let published = PublishedSnapshots()
        let exporter = MetricsExporter(version: "9.9", root: tree.absolutePath("root")) { published.add($0) }
        var options = EngineOptions(
            root: tree.absoluteBytes("root"), rootDisplay: tree.absolutePath("root"),
            socketPath: tree.absoluteBytes("control.sock"))
        options.observers = [exporter]
        options.policy.quotas = [QuotaRule(glob: try PathGlob("cache"), limit: 4096)]
        let engine = LiveEngine(options: options)
        let runner = JoinableThread(name: "test-engine") { _ = engine.run(progress: nil) }
        defer {
            engine.stop()
            runner.join()
        }

        let breached = try #require(
            published.first { $0.counters.quotaBreaches == 1 && $0.quotas.first?.state == .breach },
            "no snapshot with cache's breach")
        let du = try DuOracle.measure(tree, root: "root", directories: [.root, "cache", "docs"])
        #expect(breached.ready)
        #expect(breached.version == "9.9")
        #expect(Int64(breached.rootTally.allocated) == du.sizes[.root]?.allocated)
        #expect(breached.directories.map(\.path) == ["cache", "docs"])
        for directory in breached.directories {
            #expect(
                Int64(directory.usage.allocated) == du.sizes[TreePath(directory.path)]?.allocated,
                "\(directory.path)")
            #expect(
                Int64(directory.usage.apparent) == du.sizes[TreePath(directory.path)]?.apparent, "\(directory.path)")
        }
        let quota = try #require(breached.quotas.first)
        #expect(quota.path == "cache" && quota.limit == 4096 && quota.effectiveLimit == 4096)
        #expect(quota.state == .breach && quota.rule == "cache" && quota.size == .allocated)
        #expect(breached.level?.current == "normal")
        #expect(breached.freeBytes != nil && breached.totalBytes != nil)
        #expect(breached.watches == 3)
        #expect(exporter.snapshot.generation >= 1)

        // A write is followed by a snapshot that shows it, without any request to the engine.
        try tree.writeFile("root/docs/c", byteCount: 100_000)
        let grown = published.first { snapshot in
            snapshot.directories.first { $0.path == "docs" }.map { $0.usage.apparent >= 110_000 } ?? false
        }
        #expect(grown != nil, "no snapshot after the write to docs within 60 s")
    }

    @Test("the textfile is replaced whole: a reader racing the writer always reads a complete file")
    func textfileIsAtomic() throws {
        let tree = try TempTree(prefix: "qw-metrics-file")
        try tree.makeDirectory("collector")
        let path = tree.absolutePath("collector/quotawatch.prom")
        let textfile = MetricsTextfile(path: Array(path.utf8), minimumInterval: .zero)
        var snapshot = MetricsSnapshot(version: "1", root: "/r")
        // Large enough that a torn write would be visible.
        snapshot.directories = (0..<2000).map {
            MetricsSnapshot.Directory(path: "dir\($0)", usage: Usage(allocated: 4096, apparent: 1))
        }
        try textfile.writeNow(snapshot)
        textfile.start()

        let stop = Atomic<Bool>(false)
        let problems = Mutex<[String]>([])
        let reads = Atomic<Int>(0)
        let reader = JoinableThread(name: "test-reader") {
            while !stop.load(ordering: .acquiring) {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    problems.withLock { $0.append("the file was missing or unreadable") }
                    continue
                }
                reads.add(1, ordering: .relaxed)
                do {
                    let parsed = try PrometheusExposition(text)
                    if parsed.samples("quotawatch_directory_allocated_bytes").count != 2000 {
                        problems.withLock { $0.append("a file with a part of the directories") }
                    }
                } catch {
                    problems.withLock { $0.append("\(error)") }
                }
            }
        }
        for round in 1...200 {
            snapshot.counters.inotifyEvents = UInt64(round)
            textfile.offer(snapshot)
        }
        textfile.stop()
        stop.store(true, ordering: .releasing)
        reader.join()

        #expect(problems.withLock { Array($0.prefix(5)) } == [])
        #expect(reads.load(ordering: .relaxed) > 0)
        let final = try PrometheusExposition(try String(contentsOfFile: path, encoding: .utf8))
        #expect(final.value("quotawatch_inotify_events_total") == 200, "stop writes the last snapshot offered")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o044 } == 0o044, "readable by the collector's user")
    }

    /// A view of a tree holding only its root, at engine time `now`.
    private func view(at now: UInt64, events: UInt64 = 0) -> EngineView {
        let tree = TallyTree(
            root: FileStatus(
                device: 1, inode: 2, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096))
        return EngineView(
            now: now, rootDisplay: "/r", tree: tree,
            counters: EngineReport(events: events, rescannedDirectories: 0, overflows: 0, watches: 1, degraded: []),
            isResyncing: false, monitor: nil)
    }

    @Test("events are counted (cleanup removals only outside dry runs); a counted event brings the turn forward")
    func countsEventsAndSchedulesTurns() {
        let exporter = MetricsExporter(
            version: "1", root: "/r", interval: .seconds(1), eventGap: .milliseconds(100))
        #expect(exporter.nextTurn == nil, "no turn before ready")
        exporter.engine(.ready, view(at: 5_000_000_000))
        #expect(exporter.nextTurn == 6_000_000_000)
        #expect(exporter.snapshot.generation == 1 && exporter.snapshot.snapshot.ready)

        let time = WallTime(millisecondsSinceEpoch: 0)
        func cleanup(dryRun: Bool) -> CleanupSummary {
            var report = CleanerReport(name: "caches")
            report.removed = [
                RemovedItem(path: Array("a".utf8), freedBytes: 4096),
                RemovedItem(path: Array("b".utf8), freedBytes: 8192),
            ]
            return CleanupSummary(
                runID: "r", triggers: [.periodic(.normal)], cleaners: [report], seconds: 0, dryRun: dryRun, time: time)
        }
        exporter.engineEmitted(
            .engine(.ready(directories: 1, files: 0, allocated: 0, seconds: 0, backend: "inotify", backendReason: "")))
        #expect(exporter.nextTurn == 6_000_000_000, "the ready line changes no count")
        exporter.engineEmitted(.engine(.cleanup(cleanup(dryRun: false))))
        #expect(exporter.nextTurn == 5_100_000_000, "a counted event: a turn 100 ms after the last one")
        exporter.engineEmitted(.engine(.cleanup(cleanup(dryRun: true))))
        exporter.engineEmitted(
            .policy(
                PolicyEvent(
                    .leftover(path: Array("d/x".utf8), allocated: 12_288, idle: .seconds(7200), rule: "d"), time: time))
        )
        exporter.engineEmitted(
            .policy(
                PolicyEvent(
                    .quota(
                        state: .breach, path: Array("c".utf8), used: 9, size: .allocated, limit: 1, effectiveLimit: 1,
                        rule: "c", level: .normal), time: time)))
        exporter.engineEmitted(
            .policy(
                PolicyEvent(
                    .hookFailed(hook: "h", failedEvent: "quota_breach", status: 1, signal: nil, standardErrorTail: ""),
                    time: time)))
        #expect(exporter.snapshot.generation == 1, "nothing is published before the turn")

        exporter.engineTurn(view(at: 5_100_000_000, events: 42))
        let counters = exporter.snapshot.snapshot.counters
        #expect(counters.cleanupRuns == 2)
        #expect(counters.removedFiles == 2 && counters.removedBytes == 12_288, "the dry run removed nothing")
        #expect(counters.leftovers == 1 && counters.leftoverBytes == 12_288)
        #expect(counters.quotaBreaches == 1 && counters.hookFailures == 1)
        #expect(counters.inotifyEvents == 42, "the engine's own counters come from the view")
        #expect(exporter.nextTurn == 6_100_000_000)
    }
}
