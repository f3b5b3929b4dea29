import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// Download leftovers found by the live daemon from its own timers.
@Suite("leftovers in the live daemon")
struct LeftoverLiveTests {
    private let root = LiveFixture.root

    /// An app sandbox's three top directories turn the `ios-sandbox` profile on.
    private func sandbox() throws -> LiveFixture {
        let fixture = try LiveFixture()
        for name in ["Documents", "Library", "tmp"] { try fixture.tree.makeDirectory(root / name) }
        return fixture
    }

    @Test("a CFNetworkDownload held open for writing is never reported; abandoned, it is, exactly once")
    func downloads() throws {
        let fixture = try sandbox()
        let tree = fixture.tree
        let tmp = root / "tmp"
        let daemon = try fixture.start(options: ["--leftover-after", "2s"])
        // In progress: this process holds it open for writing and has written to it.
        try tree.writeFile(tmp / "CFNetworkDownload_live.tmp", byteCount: 30_000)
        let writer = try #require(FileHandle(forWritingAtPath: tree.absolutePath(tmp / "CFNetworkDownload_live.tmp")))
        try writer.seekToEnd()
        try writer.write(contentsOf: Data(repeating: 7, count: 20_000))
        // Abandoned: written once and closed.
        try tree.writeFile(tmp / "CFNetworkDownload_gone.tmp", byteCount: 50_000)
        // Finished: renamed into place, so no longer a download.
        try tree.writeFile(tmp / "CFNetworkDownload_done.tmp", byteCount: 10_000)
        try tree.rename(tmp / "CFNetworkDownload_done.tmp", to: root / "Documents" / "video.mp4")

        let gone = try daemon.waitForEvent("leftover", path: "tmp/CFNetworkDownload_gone.tmp")
        #expect(gone.text.contains(#""rule":"cfnetwork-download""#), "\(gone)")
        #expect(gone.text.contains(#""idle_seconds":"#), "\(gone)")
        // A marker written after that report is reported at least one age later, by which time
        // the open download has been looked at past its own deadline, perhaps twice.
        try tree.writeFile(tmp / "CFNetworkDownload_marker1.tmp", byteCount: 1_000)
        try daemon.waitForEvent("leftover", path: "tmp/CFNetworkDownload_marker1.tmp")
        #expect(
            daemon.events("leftover", where: { $0.path == "tmp/CFNetworkDownload_live.tmp" }).isEmpty,
            "a download still open for writing was reported\n\(daemon.transcript)")

        try writer.close()
        try daemon.waitForEvent("leftover", path: "tmp/CFNetworkDownload_live.tmp")
        try tree.writeFile(tmp / "CFNetworkDownload_marker2.tmp", byteCount: 1_000)
        try daemon.waitForEvent("leftover", path: "tmp/CFNetworkDownload_marker2.tmp")
        for name in ["gone", "live"] {
            let reports = daemon.events("leftover", where: { $0.path == "tmp/CFNetworkDownload_\(name).tmp" })
            #expect(reports.count == 1, "\(name): reported \(reports.count) times")
        }
        let finished = daemon.events("leftover", where: { ($0.path ?? "").contains("done") })
        #expect(finished.isEmpty, "a download renamed into place is no leftover")
        #expect(daemon.events("leftover", where: { $0.path == "Documents/video.mp4" }).isEmpty)
        try fixture.stopCleanly()
    }

    @Test(
        "a download finished before the start with its mtime set back is judged by its ctime: a leftover one age later, idle that long; one written again is not"
    )
    func presentAtStart() throws {
        let fixture = try sandbox()
        let tree = fixture.tree
        let old = root / "tmp" / "CFNetworkDownload_old.tmp"
        try tree.writeFile(old, byteCount: 40_000)
        // What curl -R leaves: the server's mtime, two hours back; the ctime says it is new.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: tree.absolutePath(old))
        let daemon = try fixture.start(options: ["--leftover-after", "3s"])
        let event = try daemon.waitForEvent("leftover", path: "tmp/CFNetworkDownload_old.tmp")
        let object = try JSONSerialization.jsonObject(with: Data(event.text.utf8)) as? [String: Any]
        let idle = try #require((object?["idle_seconds"] as? NSNumber)?.doubleValue, "\(event)")
        #expect(idle >= 3 && idle < 60, "idle counted from the ctime, not the mtime: \(event)")
        try tree.appendToFile(old, byteCount: 1_000)
        try tree.writeFile(root / "tmp" / "CFNetworkDownload_new.tmp", byteCount: 1_000)
        _ = try daemon.syncStatus()
        #expect(daemon.events("leftover").count == 1, "only the old download, and only once")
        try fixture.stopCleanly()
    }

    @Test("with --clean a leftover is removed by the leftover cleaner on its own event; an open download stays")
    func leftoverTriggersCleanup() throws {
        let fixture = try sandbox()
        let state = try TempTree(prefix: "qw-leftover-state")
        let tree = fixture.tree
        let tmp = root / "tmp"
        let daemon = try fixture.start(
            options: ["--leftover-after", "1s", "--clean"],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"])
        try tree.writeFile(tmp / "CFNetworkDownload_live.tmp", byteCount: 30_000)
        let writer = try #require(FileHandle(forWritingAtPath: tree.absolutePath(tmp / "CFNetworkDownload_live.tmp")))
        try writer.seekToEnd()
        try writer.write(contentsOf: Data(repeating: 7, count: 20_000))
        try tree.writeFile(tmp / "CFNetworkDownload_gone.tmp", byteCount: 50_000)

        try daemon.waitForEvent("leftover", path: "tmp/CFNetworkDownload_gone.tmp")
        let cleanup = try daemon.waitForEvent("cleanup")
        #expect(cleanup.text.contains(#""trigger":"leftover""#), "\(cleanup)")
        _ = try daemon.syncStatus()
        #expect(!(try tree.exists(tmp / "CFNetworkDownload_gone.tmp")), "the abandoned download was not removed")
        #expect(try tree.exists(tmp / "CFNetworkDownload_live.tmp"), "the download still being written was removed")
        try writer.close()
        try fixture.stopCleanly()
    }

    @Test("with --clean, the leftovers there at start are removed by the first run, all of them, and listed")
    func leftoversAtStartAreCleaned() throws {
        let fixture = try sandbox()
        let state = try TempTree(prefix: "qw-leftover-state")
        let tree = fixture.tree
        let tmp = root / "tmp"
        let names = (1...3).map { "CFNetworkDownload_OLD\($0).tmp" }
        for name in names {
            try tree.writeFile(tmp / name, byteCount: 100_000)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: tree.absolutePath(tmp / name))
        }
        // Leftovers at start: idle past their age by their ctime too, not only by the old mtime.
        try waitUntilUnchanged(tree, names.map { tmp / $0 }, forMoreThan: 1)
        let daemon = try fixture.start(
            options: ["--leftover-after", "1s", "--clean"],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"])
        let cleanup = try daemon.waitForEvent("cleanup")
        for name in names {
            #expect(cleanup.text.contains("tmp/\(name)"), "the first run does not list \(name): \(cleanup)")
        }
        _ = try daemon.syncStatus()
        for name in names {
            #expect(!(try tree.exists(tmp / name)), "\(name), a leftover at start, was not removed")
        }
        #expect(daemon.events("cleanup").count == 1, "one run for the start's leftovers\n\(daemon.transcript)")
        try fixture.stopCleanly()
    }
}
