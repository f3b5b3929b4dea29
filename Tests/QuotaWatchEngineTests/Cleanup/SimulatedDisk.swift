import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization

/// What is on the simulated disk, as the deleter sees it, and every deletion asked of it: the
/// removal backend of ``CleaningSimulation``. It checks what the real deleter checks that the
/// simulation can model (the name still leads to the inode chosen; an idle file not changed
/// since it was chosen) and records the rest for the oracle.
final class SimulatedDisk: RemovalBackend, Sendable {
    struct File: Sendable {
        var inode: UInt64
        var allocated: UInt64
        var changed: Int64
    }

    struct Removed: Sendable {
        var path: [UInt8]
        var inode: UInt64
        var allocated: UInt64
        var cleaner: String
        var trigger: String
        var wall: Int64
    }

    /// The registered stand-in was called: its context, and the disk as it was then.
    struct AppCall: Sendable {
        var context: CleanupContext
        var present: Set<[UInt8]>
        /// Deletions of this run before the call.
        var removedBefore: [Removed]
    }

    private struct State {
        var files: [[UInt8]: File] = [:]
        var removed: [Removed] = []
        var refused: [[UInt8]] = []
        var appCalls: [AppCall] = []
        var wall: Int64 = CleaningSimulation.wallStart
        var coin = SeededGenerator(seed: 1)
    }

    private let state = Mutex(State())

    func seed(_ value: UInt64) { state.withLock { $0.coin = SeededGenerator(seed: value ^ 0xC01) } }

    var wallNow: Int64 { state.withLock { $0.wall } }
    func setWall(_ wall: Int64) { state.withLock { $0.wall = wall } }

    /// The files of `fs`, as the disk has them now.
    func sync(from fs: FakeFileSystem) {
        var files: [[UInt8]: File] = [:]
        for path in fs.paths(below: FakePath(components: [])) {
            guard let inode = fs.inode(at: path), let node = fs.nodes[inode], !node.isDirectory else { continue }
            files[Array(path.components.joined(separator: [UInt8(ascii: "/")]))] = File(
                inode: inode, allocated: node.allocated, changed: node.changed)
        }
        state.withLock { $0.files = files }
    }

    var files: [[UInt8]: File] { state.withLock { $0.files } }

    func remove(_ request: RemovalRequest) -> DeletionOutcome {
        state.withLock { state in
            guard let file = state.files[request.path] else { return .skipped(.gone(request.path)) }
            guard file.inode == request.identity.inode else {
                return .skipped(
                    .changedInode(expected: request.identity, found: FileIdentity(device: 0, inode: file.inode)))
            }
            if let since = request.identity.unchangedSince, file.changed > since {
                return .skipped(.changedSinceChosen)
            }
            // Now and then a cache file is held open by its writer: eviction must go on without it.
            if request.audit.cleaner == "evict", Int.random(in: 0..<6, using: &state.coin) == 0 {
                state.refused.append(request.path)
                return .skipped(.openForWriting(processID: 42))
            }
            state.files.removeValue(forKey: request.path)
            state.removed.append(
                Removed(
                    path: request.path, inode: file.inode, allocated: file.allocated, cleaner: request.audit.cleaner,
                    trigger: request.audit.trigger, wall: state.wall))
            var removal = Removal(dryRun: false)
            removal.freedBytes = file.allocated
            return .removed(removal)
        }
    }

    /// The deletions since the last call, in order, the names refused as open, and the
    /// stand-in's calls with them.
    func takeRemoved() -> (removed: [Removed], refused: [[UInt8]], appCalls: [AppCall]) {
        state.withLock { state in
            defer {
                state.removed = []
                state.refused = []
                state.appCalls = []
            }
            return (state.removed, state.refused, state.appCalls)
        }
    }

    func noteAppContext(_ context: CleanupContext) {
        state.withLock { state in
            state.appCalls.append(
                AppCall(context: context, present: Set(state.files.keys), removedBefore: state.removed))
        }
    }

    func flipCoin() -> Bool { state.withLock { Bool.random(using: &$0.coin) } }
}
