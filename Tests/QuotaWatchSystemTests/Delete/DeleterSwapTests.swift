import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@Suite("Deleter: a hostile process swapping directories for symlinks")
struct DeleterSwapTests {
    static let directories = 8
    static let filesPerDirectory = 40
    static let minimumSwaps = 400

    /// Every victim file also has a hard link in the decoy tree outside ROOT, at the same
    /// relative path: the inode check alone could not tell a redirected delete apart, only
    /// the walk can. The decoy's listing and link counts must not change.
    @Test(
        "hundreds of swaps while every file is deleted: the decoy is untouched",
        arguments: [
            Deleter.WalkMethod.openat2, .perComponent,
        ])
    func swapStorm(walk: Deleter.WalkMethod) throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory(Array("victims".utf8))
        var chosen: [(path: [UInt8], identity: FileIdentity)] = []
        for directory in 0..<Self.directories {
            try fixture.makeDirectory(Array("victims/d\(directory)".utf8))
            try check(mkdir(fixture.decoyPath + "/d\(directory)", 0o755))
            for file in 0..<Self.filesPerDirectory {
                let path = "victims/d\(directory)/f\(file)"
                let identity = try fixture.makeFile(Array(path.utf8), bytes: 100)
                try check(link(fixture.rootPath + "/" + path, fixture.decoyPath + "/d\(directory)/f\(file)"))
                chosen.append((Array(path.utf8), identity))
            }
        }
        let decoyBefore = TempTree.namesAndSizes(below: fixture.decoyPath)

        let swapper = Swapper(victims: fixture.rootPath + "/victims", decoy: fixture.decoyPath, count: Self.directories)
        swapper.start()
        let deleter = try fixture.deleter(walk: walk, checkWriters: false)
        var removed = 0
        var refusedBySymlink = 0
        var attempts = 0
        var pending = chosen
        while !pending.isEmpty || swapper.swaps < Self.minimumSwaps {
            if pending.isEmpty {
                swapper.waitForSwaps(Self.minimumSwaps)
                continue
            }
            // Keep pace with the swapper, so that swaps happen all through the deletions
            // rather than after they are done on a loaded machine.
            attempts += 1
            swapper.waitForSwaps(attempts)
            let (path, identity) = pending.removeFirst()
            switch deleter.remove(path, expecting: identity, journal: RecordingJournal()) {
            case .removed: removed += 1
            case .skipped(.symlinkInPath), .skipped(.gone), .skipped(.notADirectory):
                refusedBySymlink += 1
                pending.append((path, identity))  // try again once the real directory is back
            case let other:
                Issue.record("unexpected outcome for \(String(decoding: path, as: UTF8.self)): \(other)")
            }
        }
        swapper.stop()

        #expect(removed == chosen.count)
        #expect(swapper.swaps >= Self.minimumSwaps)
        #expect(TempTree.namesAndSizes(below: fixture.decoyPath) == decoyBefore)
        for directory in 0..<Self.directories {
            for file in 0..<Self.filesPerDirectory {
                var status = stat()
                try check(lstat(fixture.decoyPath + "/d\(directory)/f\(file)", &status))
                #expect(status.st_nlink == 1, "the decoy's link is the inode's last name now")
            }
        }
        print("swap storm (\(walk)): \(swapper.swaps) swaps, \(refusedBySymlink) refusals, \(removed) removed")
    }
}

/// A thread that keeps renaming each victim directory away, putting a symlink to the decoy in
/// its place, and putting it back.
private final class Swapper: Sendable {
    let victims: String
    let decoy: String
    let count: Int
    private let counter = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let progress = Mutex<[(Int, DispatchSemaphore)]>([])

    init(victims: String, decoy: String, count: Int) {
        self.victims = victims
        self.decoy = decoy
        self.count = count
    }

    var swaps: Int { counter.load(ordering: .acquiring) }

    func start() {
        Thread.detachNewThread { [self] in
            var index = 0
            while !stopping.load(ordering: .acquiring) {
                let directory = "\(victims)/d\(index % count)"
                let hidden = directory + ".hidden"
                if rename(directory, hidden) == 0 {
                    _ = symlink("\(decoy)/d\(index % count)", directory)
                    _ = unlink(directory)
                    _ = rename(hidden, directory)
                }
                index += 1
                let done = counter.add(1, ordering: .releasing).newValue
                progress.withLock { waiters in
                    waiters.removeAll { target, semaphore in
                        guard done >= target else { return false }
                        semaphore.signal()
                        return true
                    }
                }
            }
            finished.signal()
        }
    }

    func waitForSwaps(_ target: Int) {
        let semaphore = DispatchSemaphore(value: 0)
        let reached = progress.withLock { waiters in
            if swaps >= target { return true }
            waiters.append((target, semaphore))
            return false
        }
        if !reached { semaphore.wait() }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        finished.wait()
    }
}
