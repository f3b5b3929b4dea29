import QuotaWatchCore
import QuotaWatchPolicy
import Synchronization
import Testing

@testable import QuotaWatchEngine

/// A leftover's idle time counts from times no program can set back: the latest of the mtime,
/// the ctime and the last change the engine saw; a time in the future counts for nothing.
@Suite("leftover ages that programs cannot set back")
struct LeftoverTimeTests {
    static let second: Int64 = 1_000_000_000
    static let wallStart: Int64 = 1_796_166_245 * second
    static let path: FakePath = "tmp/CFNetworkDownload_1.tmp"

    /// tmp/ under an idle-file rule with a 5 s age, and a wall clock the test moves with the
    /// engine's.
    final class Wall: Sendable {
        let nanoseconds: Mutex<Int64>
        init(_ start: Int64) { nanoseconds = Mutex(start) }
        var now: Int64 { nanoseconds.withLock { $0 } }
    }

    struct Downloads {
        var p: PolicyHarness
        let wall: Wall
        let engineStart: UInt64
        let pass: LeftoverPass<FakeFileSystem>
        var reported: [String] = []

        init(setUp: (inout FakeFileSystem) throws -> Void) throws {
            var fs = FakeFileSystem()
            fs.wallNow = LeftoverTimeTests.wallStart
            try fs.mkdir("tmp")
            try setUp(&fs)
            var config = PolicyConfig()
            config.leftovers.rules = [
                LeftoverRule(name: "downloads", paths: [try PathGlob("tmp/*.tmp")], kind: .idleFile(age: .seconds(5)))
            ]
            p = PolicyHarness(fs, config: config)
            engineStart = p.h.now
            _ = p.start()
            let wall = Wall(fs.wallNow)
            self.wall = wall
            pass = LeftoverPass(isOpenForWriting: { _ in false }, wallClock: { wall.now })
            reported += p.describe(pass.run(&p.monitor, &p.h.live, changed: [], now: p.h.now))
        }

        /// Moves both clocks on, delivers what happened, and runs the pass as a turn does. The
        /// wall clock keeps step with the engine's (delivering moves it past the move window).
        mutating func advance(milliseconds: Int64) {
            p.h.now += UInt64(milliseconds) * 1_000_000
            p.h.deliverAndWait()
            let now = LeftoverTimeTests.wallStart + Int64(p.h.now) - Int64(engineStart)
            p.h.fs.wallNow = now
            wall.nanoseconds.withLock { $0 = now }
            let changes = p.h.live.drainStructureChanges()
            _ = p.monitor.afterTurn(
                &p.h.live.tree, changes: changes, now: p.h.now, time: WallTime(millisecondsSinceEpoch: 0))
            reported += p.describe(pass.run(&p.monitor, &p.h.live, changed: changes.files, now: p.h.now))
        }
    }

    @Test("a download appended every 250 ms with its mtime reset to 1970 after each append is never a leftover")
    func mtimeSetBackWhileWriting() throws {
        var d = try Downloads { try $0.createFile(Self.path, size: 1) }
        var size: UInt64 = 1
        for _ in 0..<24 {
            d.advance(milliseconds: 250)
            size += 4_096
            try d.p.h.fs.write(Self.path, size: size)
            try d.p.h.fs.setModified(Self.path, to: 0)
        }
        d.advance(milliseconds: 1)
        #expect(d.reported.isEmpty, "written for 6 s, last 1 ms ago: \(d.reported)")
        // The writer stops: the download is a leftover once it has been idle for its age.
        d.advance(milliseconds: 4_900)
        #expect(d.reported.isEmpty)
        d.advance(milliseconds: 200)
        #expect(d.reported == ["leftover tmp/CFNetworkDownload_1.tmp"])
    }

    @Test("a download finished with curl -R just before the start is judged by its ctime, not its three-day-old mtime")
    func finishedWithAnOldMtimeBeforeTheStart() throws {
        var d = try Downloads { fs in
            try fs.createFile(Self.path, size: 10_000)
            try fs.setModified(Self.path, to: Self.wallStart - 259_200 * Self.second)
        }
        #expect(d.reported.isEmpty, "its ctime is seconds old")
        d.advance(milliseconds: 4_000)
        #expect(d.reported.isEmpty)
        d.advance(milliseconds: 1_100)
        #expect(d.reported == ["leftover tmp/CFNetworkDownload_1.tmp"])
    }

    @Test("an mtime in 2100 or past 2262 does not make a download immortal")
    func futureMtimeIsNotImmortal() throws {
        for future in [Int64(4_102_444_800) * Self.second, .max] {
            var d = try Downloads { fs in
                try fs.createFile(Self.path, size: 10_000)
                try fs.setModified(Self.path, to: future)
            }
            d.advance(milliseconds: 5_100)
            #expect(d.reported == ["leftover tmp/CFNetworkDownload_1.tmp"], "mtime \(future)")
        }
    }
}
