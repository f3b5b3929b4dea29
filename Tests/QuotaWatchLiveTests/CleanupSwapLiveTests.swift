import Foundation
import Glibc
import QuotaWatchTestSupport
import Synchronization
import Testing

/// The daemon's cleaners against a hostile process that keeps swapping the directory being
/// cleaned for a symlink: to a decoy outside ROOT, and to one inside `Documents/`.
@Suite("cleaners against symlink swaps in the live daemon")
struct CleanupSwapLiveTests {
    private let root = LiveFixture.root

    /// Names and sizes of every file below `path`, the decoy's "checksum listing".
    private func listing(_ path: String) throws -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        let base = URL(fileURLWithPath: path)
        for case let url as URL in FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) ?? .init()
        {
            var status = stat()
            guard lstat(url.path, &status) == 0 else { continue }
            result[url.path] = UInt64(status.st_size)
        }
        return result
    }

    @Test("clean-now runs while the cleaned directory is swapped for symlinks: no decoy file is touched")
    func swapStorm() throws {
        let runs = ProcessInfo.processInfo.environment["QUOTAWATCH_SWAP_RUNS"].flatMap(Int.init) ?? 25
        let fixture = try LiveFixture()
        let state = try TempTree(prefix: "qw-swap-state")
        let tree = fixture.tree
        let cache = root / "Caches" / "a"
        try tree.makeDirectories(cache)
        try tree.makeDirectories(root / "Documents" / "decoy")
        try tree.makeDirectories(LiveFixture.outside / "decoy")
        for index in 0..<30 {
            try tree.writeFile(LiveFixture.outside / "decoy" / "f\(index)", byteCount: 4_096)
            try tree.writeFile(root / "Documents" / "decoy" / "f\(index)", byteCount: 4_096)
        }
        let outsideDecoy = tree.absolutePath(LiveFixture.outside / "decoy")
        let insideDecoy = tree.absolutePath(root / "Documents" / "decoy")
        let before = (try listing(outsideDecoy), try listing(insideDecoy))
        let daemon = try fixture.start(
            options: ["--quota", "Caches/*=20kB", "--clean"],
            wrapper: ["/usr/bin/env", "STATE_DIRECTORY=\(state.rootPath)"])

        let victim = tree.absolutePath(cache)
        let parked = victim + ".real"
        let stop = Mutex(false)
        // Held for each whole swap, so the test's own refills never land in a decoy.
        let swapping = NSLock()
        let finished = DispatchSemaphore(value: 0)
        let swapper = Thread {
            defer { finished.signal() }
            var toOutside = true
            while !stop.withLock({ $0 }) {
                swapping.lock()
                if rename(victim, parked) == 0 {
                    symlink(toOutside ? outsideDecoy : insideDecoy, victim)
                    usleep(200)
                    unlink(victim)
                    rename(parked, victim)
                }
                swapping.unlock()
                toOutside.toggle()
            }
        }
        swapper.start()
        var written = 0
        for run in 0..<runs {
            swapping.lock()
            for index in 0..<8 {
                try tree.writeFile(cache / "r\(run)-\(index)", byteCount: 4_096)
                written += 1
            }
            swapping.unlock()
            let result = try fixture.cli.run(["clean-now", "--socket", fixture.socketPath, "--json"])
            #expect(result.exitStatus == 0, "run \(run): \(result.errorText)")
        }
        stop.withLock { $0 = true }
        finished.wait()
        #expect(try listing(outsideDecoy) == before.0, "the decoy outside ROOT changed")
        #expect(try listing(insideDecoy) == before.1, "the decoy in Documents changed")
        let left = try FileManager.default.contentsOfDirectory(atPath: victim).count
        #expect(left < written, "the cleaners removed nothing, so the swaps were never put to the test")
        print(
            "symlink swap: \(runs) clean-now runs, \(written - left) of \(written) files removed "
                + "(QUOTAWATCH_SWAP_RUNS to change)")
        _ = daemon
        try fixture.stopCleanly()
    }
}
