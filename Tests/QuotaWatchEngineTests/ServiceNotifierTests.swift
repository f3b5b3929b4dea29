import QuotaWatchCore
import Synchronization
import Testing

@testable import QuotaWatchEngine

/// Keeps what the notifier posts, in order.
private final class RecordingSink: ServiceMessageSink {
    let posted = Mutex<[String]>([])
    let finished = Mutex(false)

    func post(_ message: String) { posted.withLock { $0.append(message) } }
    func finish() { finished.withLock { $0 = true } }
}

@Suite("systemd notifier decisions")
struct ServiceNotifierTests {
    private static let second: UInt64 = 1_000_000_000

    private static func view(at now: UInt64, files: Int = 0) -> EngineView {
        let directory = FileStatus(
            device: 1, inode: 1, kind: .directory, linkCount: 2, apparentBytes: 4096, allocatedBytes: 4096)
        var tree = TallyTree(root: directory)
        for index in 0..<files {
            tree.addFile(
                named: Array("f\(index)".utf8), in: tree.root,
                status: FileStatus(
                    device: 1, inode: UInt64(10 + index), kind: .regular, linkCount: 1, apparentBytes: 1,
                    allocatedBytes: 4096))
        }
        let counters = EngineReport(
            events: 0, rescannedDirectories: 0, overflows: 0, watches: 1, degraded: [], requests: 0, cpuSeconds: 0)
        return EngineView(
            now: now, rootDisplay: "/r", tree: tree, counters: counters, isResyncing: false, monitor: nil)
    }

    @Test("nothing is due before ready; ready sends READY=1 with the status and asks for a ping at once")
    func ready() {
        let sink = RecordingSink()
        let notifier = ServiceNotifier(watchdogPeriod: .seconds(2), sink: sink)
        #expect(notifier.nextTurn == nil)
        notifier.engine(.ready, Self.view(at: 5 * Self.second, files: 1))
        #expect(sink.posted.withLock { $0 } == ["READY=1\nSTATUS=1 file, 1 directory, 8.2 KB allocated"])
        #expect(notifier.nextTurn == 5 * Self.second)
    }

    @Test("a ping every half period from the turns; the status only when it changed, at most once a second")
    func turns() {
        let sink = RecordingSink()
        let notifier = ServiceNotifier(watchdogPeriod: .seconds(2), sink: sink)
        let start = 5 * Self.second
        notifier.engine(.ready, Self.view(at: start))
        notifier.engineTurn(Self.view(at: start))
        #expect(sink.posted.withLock { $0.last } == "WATCHDOG=1")
        #expect(notifier.nextTurn == start + Self.second)
        // A second later: ping due (half of 2 s) and the status looked at, unchanged.
        notifier.engineTurn(Self.view(at: start + Self.second))
        #expect(sink.posted.withLock { $0.last } == "WATCHDOG=1")
        // The tree changed; the next look sends it with the ping.
        notifier.engineTurn(Self.view(at: start + 2 * Self.second, files: 2))
        #expect(
            sink.posted.withLock { $0.last } == "WATCHDOG=1\nSTATUS=2 files, 1 directory, 12.3 KB allocated")
        #expect(sink.posted.withLock { $0.count } == 4)
    }

    @Test("without a watchdog only the status look is scheduled; reload and stop")
    func reloadAndStop() {
        let sink = RecordingSink()
        let notifier = ServiceNotifier(watchdogPeriod: nil, sink: sink)
        notifier.engine(.ready, Self.view(at: Self.second))
        #expect(notifier.nextTurn == 2 * Self.second)
        notifier.engine(.reloading, Self.view(at: Self.second))
        #expect(sink.posted.withLock { $0.last?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") } == true)
        notifier.engine(.reloaded(applied: true), Self.view(at: Self.second))
        #expect(sink.posted.withLock { $0.last } == "READY=1")
        notifier.engine(.reloaded(applied: false), Self.view(at: Self.second))
        #expect(
            sink.posted.withLock { $0.last?.hasSuffix("; the last reload failed, the rules in force stay") } == true)
        notifier.engine(.stopping, Self.view(at: Self.second))
        #expect(sink.posted.withLock { $0.last } == "STOPPING=1")
        #expect(sink.finished.withLock { $0 })
        #expect(notifier.nextTurn == nil)
    }
}

@Suite("systemd notifier of a daemon serving several roots")
struct ServiceNotifierGroupTests {
    @Test("READY once every root is ready, a ping once every root has pinged, STOPPING with the last root only")
    func oneServiceForManyRoots() {
        let sink = RecordingSink()
        let group = ServiceNotifierGroup(roots: ["/a", "/b", "/c"], sink: sink)
        let (a, b, c) = (group.member(0), group.member(1), group.member(2))
        a.post("READY=1\nSTATUS=a ready")
        b.post("READY=1")
        #expect(!sink.posted.withLock { $0 }.contains { $0.contains("READY=1") }, "two of three roots ready")
        c.post("READY=1")
        #expect(sink.posted.withLock { $0 }.last == "READY=1")
        a.post("WATCHDOG=1")
        b.post("WATCHDOG=1")
        #expect(!sink.posted.withLock { $0 }.contains("WATCHDOG=1"), "root c has not pinged: it may be stuck")
        c.post("WATCHDOG=1")
        #expect(sink.posted.withLock { $0 }.last == "WATCHDOG=1")
        // Root c fails alone: the manager is not told the service stops, and pings need a and b only.
        c.post("STOPPING=1")
        c.finish()
        #expect(!sink.posted.withLock { $0 }.contains("STOPPING=1") && !sink.finished.withLock { $0 })
        a.post("WATCHDOG=1")
        b.post("WATCHDOG=1")
        #expect(sink.posted.withLock { $0 }.filter { $0 == "WATCHDOG=1" }.count == 2)
        a.post("STOPPING=1")
        b.post("STOPPING=1")
        #expect(sink.posted.withLock { $0 }.last == "STOPPING=1" && sink.finished.withLock { $0 })
        #expect(sink.posted.withLock { $0 }.contains { $0.hasPrefix("STATUS=1 of 3 roots ready; /a: a ready") })
    }
}
