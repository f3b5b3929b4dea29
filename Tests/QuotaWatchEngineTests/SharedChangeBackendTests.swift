import QuotaWatchCore
import QuotaWatchSystem
import Synchronization
import Testing

@testable import QuotaWatchEngine

/// The roots' views of one shared backend, on a kernel object made of a table: what each root
/// is told, what reaches the kernel, and when it closes.
@Suite("one backend shared by several roots")
struct SharedChangeBackendTests {
    private let kernel = FakeKernel()

    private func shared() throws -> SharedChangeBackend {
        let kernel = self.kernel
        return try SharedChangeBackend(name: "fake") { _ throws(BackendFailure) in kernel }
    }

    private func started(_ shared: SharedChangeBackend) throws -> (SharedBackendView, Received) {
        let opened = shared.view(root: FileDescriptor(rawValue: -1), changedFiles: { _ in })
        let view = try #require(opened)
        let received = Received()
        view.start(changes: { received.add($0) }, failed: { received.fail($0) })
        return (view, received)
    }

    private func change(_ key: Int32) -> FileSystemChange { FileSystemChange(watch: key, kind: .created, name: [0x61]) }

    @Test("each root hears the changes of the directories it watched, and every root an overflow")
    func eachRootHearsItsOwn() throws {
        let shared = try shared()
        let (first, firstReceived) = try started(shared)
        let (second, secondReceived) = try started(shared)
        let a = first.watch(FileDescriptor(rawValue: 10))
        let b = second.watch(FileDescriptor(rawValue: 20))
        kernel.emit([change(a), change(b), .overflow, change(a)])
        #expect(firstReceived.changes == [change(a), .overflow, change(a)])
        #expect(secondReceived.changes == [change(b), .overflow])
    }

    @Test("the roots' common parent is watched once and released by the last root that lets go")
    func commonParentReleasedByTheLast() throws {
        let shared = try shared()
        let (first, firstReceived) = try started(shared)
        let (second, secondReceived) = try started(shared)
        let parent = try #require(first.watchRemovals(in: FileDescriptor(rawValue: 5)))
        #expect(second.watchRemovals(in: FileDescriptor(rawValue: 5)) == parent)
        kernel.emit([change(parent)])
        #expect(firstReceived.changes == [change(parent)] && secondReceived.changes == [change(parent)])
        first.unwatch(parent)
        #expect(kernel.unwatched.isEmpty, "the second root still holds it")
        second.unwatch(parent)
        #expect(kernel.unwatched == [parent])
    }

    @Test("a root that stops releases its own watches; the others go on; the last one closes the kernel's")
    func stoppingRootsReleaseTheirOwn() throws {
        let shared = try shared()
        let (first, _) = try started(shared)
        let (second, secondReceived) = try started(shared)
        let a = first.watch(FileDescriptor(rawValue: 10))
        let b = second.watch(FileDescriptor(rawValue: 20))
        first.stop()
        first.stop()
        #expect(kernel.unwatched == [a])
        #expect(!kernel.isStopped)
        #expect(first.watch(FileDescriptor(rawValue: 30)) == WatchOutcome.failed, "a stopped root adds nothing")
        kernel.emit([change(a), change(b)])
        #expect(secondReceived.changes == [change(b)])
        second.stop()
        #expect(kernel.isStopped)
        #expect(shared.view(root: FileDescriptor(rawValue: -1), changedFiles: { _ in }) == nil)
    }

    @Test("the reader's failure reaches every root, one started after it too")
    func failureReachesEveryRoot() throws {
        let shared = try shared()
        let (_, firstReceived) = try started(shared)
        kernel.fail(.busy)
        let (_, lateReceived) = try started(shared)
        #expect(firstReceived.failures == [.busy] && lateReceived.failures == [.busy])
    }
}

/// What one root's engine was told.
private final class Received: Sendable {
    private let state = Mutex<([FileSystemChange], [Errno])>(([], []))
    func add(_ changes: [FileSystemChange]) { state.withLock { $0.0 += changes } }
    func fail(_ error: Errno) { state.withLock { $0.1.append(error) } }
    var changes: [FileSystemChange] { state.withLock { $0.0 } }
    var failures: [Errno] { state.withLock { $0.1 } }
}

/// A kernel object as a table: one key per descriptor (the same directory, the same key), the
/// keys dropped, and the reader's callbacks, which the test calls on its own thread.
private final class FakeKernel: ChangeBackend {
    private struct State {
        var keys: [CInt: Int32] = [:]
        var unwatched: [Int32] = []
        var stopped = false
        var changes: (@Sendable ([FileSystemChange]) -> Void)?
        var failed: (@Sendable (Errno) -> Void)?
    }
    private let state = Mutex(State())

    func watch(_ directory: FileDescriptor) -> Int32 {
        state.withLock { state in
            if let key = state.keys[directory.rawValue] { return key }
            let key = Int32(state.keys.count + 1)
            state.keys[directory.rawValue] = key
            return key
        }
    }

    func watchOpens(_ directory: FileDescriptor, key: Int32) -> Bool { true }
    func watchRemovals(in parent: FileDescriptor) -> Int32? { watch(parent) }
    func unwatch(_ key: Int32) { state.withLock { $0.unwatched.append(key) } }
    var marks: Int? { nil }

    func start(
        changes: @escaping @Sendable ([FileSystemChange]) -> Void, failed: @escaping @Sendable (Errno) -> Void
    ) {
        state.withLock {
            $0.changes = changes
            $0.failed = failed
        }
    }

    func stop() { state.withLock { $0.stopped = true } }

    func emit(_ changes: [FileSystemChange]) { state.withLock { $0.changes }?(changes) }
    func fail(_ error: Errno) { state.withLock { $0.failed }?(error) }
    var unwatched: [Int32] { state.withLock { $0.unwatched } }
    var isStopped: Bool { state.withLock { $0.stopped } }
}
