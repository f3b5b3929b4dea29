import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// What the engine's counters promise: file churn re-lists nothing, and a real overflow of
/// the kernel's queue is recovered from with one resync.
@Suite("engine counters under load")
struct EngineCounterTests {
    private let root = LiveFixture.root

    @Test("pure file churn in existing directories re-lists no directory")
    func fileChurnDoesNotRescan() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let directories = (0..<8).map { root / "d\($0)" }
        for directory in directories { try tree.makeDirectory(directory) }
        try fixture.start()
        let before = try fixture.expectLiveMatchesScan("before the churn")

        var generator = SeededGenerator(seed: 0xC4_0815)
        var files: [TreePath] = []
        var made = 0
        for _ in 0..<1_500 {
            let directory = directories.randomElement(using: &generator)!
            let roll = Int.random(in: 0..<10, using: &generator)
            switch files.count < 10 ? 0 : roll {
            case 0..<3:
                made += 1
                let file = directory / "file-\(made)"
                try tree.writeFile(file, byteCount: Int.random(in: 0...40_000, using: &generator))
                files.append(file)
            case 3:
                let file = files.randomElement(using: &generator)!
                try tree.appendToFile(file, byteCount: Int.random(in: 1...9_000, using: &generator))
            case 4:
                let file = files.randomElement(using: &generator)!
                try tree.truncateFile(file, to: Int.random(in: 0...200_000, using: &generator))
            case 5:
                try tree.unlinkEntry(files.remove(at: Int.random(in: 0..<files.count, using: &generator)))
            case 6:
                let index = Int.random(in: 0..<files.count, using: &generator)
                made += 1
                let target = directory / "renamed-\(made)"
                try tree.rename(files[index], to: target)
                files[index] = target
            case 7:
                // Over an existing file, unless both names are the same inode.
                let source = Int.random(in: 0..<files.count, using: &generator)
                let target = Int.random(in: 0..<files.count, using: &generator)
                guard source != target else { continue }
                try tree.rename(files[source], to: files[target])
                if try !tree.exists(files[source]) { files.remove(at: source) }
            case 8:
                made += 1
                let link = directory / "link-\(made)"
                try tree.makeHardLink(link, to: files.randomElement(using: &generator)!)
                files.append(link)
            default:
                made += 1
                try tree.makeSymlink(directory / "symlink-\(made)", target: "file-\(made - 1)")
            }
        }
        let after = try fixture.expectLiveMatchesScan("after the churn", du: true)
        #expect(after.engine.rescannedDirs == before.engine.rescannedDirs, "\(before.engine) → \(after.engine)")
        #expect(after.engine.events > before.engine.events, "\(before.engine) → \(after.engine)")
        #expect(after.engine.overflows == 0)
        try fixture.stopCleanly()
    }

    @Test("a real overflow while the daemon is stopped: one resync, exact tallies")
    func queueOverflow() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let directories = (0..<10).map { root / "bulk\($0)" }
        for directory in directories {
            try tree.makeDirectory(directory)
            try tree.writeFile(directory / "seed", byteCount: 2_000)
        }
        // inotify's queue: the fanotify backend's queue is unlimited (FAN_UNLIMITED_QUEUE) and
        // cannot be overflowed this way; its FAN_Q_OVERFLOW takes the same resync path
        // (FanotifyTranslatorTests.anOverflowIsInotifysOverflow).
        let daemon = try fixture.start(options: ["--backend", "inotify"])
        let before = try fixture.expectLiveMatchesScan("before the overflow")

        // Each new file queues at least one event; with the daemon stopped, nothing drains
        // the kernel's queue. New files go into watched directories only: files in a new
        // directory queue no events.
        let queueLength =
            (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
        let fileCount = max(50_000, queueLength + 10_000)
        try daemon.suspend()
        var resumed = false
        defer { if !resumed { try? daemon.resume() } }
        for (index, directory) in directories.enumerated() {
            let names = stride(from: index, to: fileCount, by: directories.count).map { Array("n\($0)".utf8) }
            try tree.makeEmptyFiles(in: directory, names: names)
        }
        try tree.appendToFile(directories[0] / "seed", byteCount: 100_000)
        try daemon.resume()
        resumed = true

        let after = try fixture.expectLiveMatchesScan("after the overflow")
        try daemon.waitForEvent("overflow")
        let resynced = try daemon.waitForEvent("resynced")
        #expect(after.engine.overflows >= 1, "\(after.engine)")
        #expect(resynced.dirs == directories.count + 1, "\(resynced)")
        #expect(after.engine.rescannedDirs > before.engine.rescannedDirs, "\(before.engine) → \(after.engine)")

        // Back to event by event after the resync.
        try tree.unlinkEntry(directories[1] / "n1")
        try tree.writeFile(directories[2] / "after-resync", byteCount: 30_000)
        try fixture.expectLiveMatchesScan("after changes that follow the resync")
        try fixture.stopCleanly()
    }
}
