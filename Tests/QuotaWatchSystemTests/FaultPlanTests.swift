import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization
import Testing

/// The fault driver at the system-call chokepoint: what it fails, what it lets through, whom
/// it reaches, and the inotify read under EINTR and EAGAIN.
@Suite("FaultPlan: injected errors at the system-call chokepoint")
struct FaultPlanTests {
    @Test("always, the next N, after letting some through, and only the matching path")
    func failsWhatItIsToldAndNothingElse() throws {
        let scratch = try ScratchDirectory()
        for name in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: scratch.file(name), withIntermediateDirectories: false)
        }
        let base = try FileDescriptor.currentWorkingDirectory.openDirectory(scratch.path.bytes)
        defer { base.close() }
        let faults = FaultPlan()
        faults.fail(.openat, with: .tooManyOpenFiles, times: 2, skipping: 1, path: "a")
        faults.fail(.fstatat, with: .staleHandle)
        let outcomes: [Errno?] = faults.arm {
            (0..<4).map { _ -> Errno? in
                do throws(Errno) {
                    try base.openDirectory("a".bytes).close()
                    return nil
                } catch {
                    return error
                }
            }
        }
        #expect(outcomes == [nil, .tooManyOpenFiles, .tooManyOpenFiles, nil])
        let other = faults.arm { Result { () throws(Errno) in try base.openDirectory("b".bytes) } }
        try other.get().close()
        #expect(faults.arm { Result { () throws(Errno) in try base.status(of: "b".bytes) } } == .failure(.staleHandle))
        // Outside `arm` the plan is not consulted at all.
        #expect(try base.status(of: "b".bytes).kind == .directory)
        let opens = faults.calls(.openat)
        #expect(opens.map(\.injected) == [nil, .tooManyOpenFiles, .tooManyOpenFiles, nil, nil])
        #expect(opens.map { $0.path.map { String(decoding: $0, as: UTF8.self) } } == ["a", "a", "a", "a", "b"])
        #expect(opens.allSatisfy { $0.descriptor == base.rawValue })
        #expect(faults.calls(.fstatat).count == 1)
    }

    @Test("a path rule matches the whole path or its tail after a slash, never part of a name")
    func pathMatchesWholeComponents() throws {
        let scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.file("xa"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: scratch.file("a"), withIntermediateDirectories: false)
        let faults = FaultPlan()
        faults.fail(.openat, with: .permissionDenied, path: "a")
        let cwd = FileDescriptor.currentWorkingDirectory
        faults.arm {
            #expect(throws: Never.self) { try cwd.openDirectory(scratch.file("xa").bytes).close() }
            #expect(throws: Errno.permissionDenied) { try cwd.openDirectory(scratch.file("a").bytes).close() }
        }
    }

    /// Tests run in parallel on many threads: a plan reaches the thread that armed it and the
    /// JoinableThreads started under it, never a thread started some other way.
    @Test("armed on one thread, inherited by a JoinableThread started there, unseen elsewhere")
    func reachesOnlyItsOwnThreads() throws {
        let scratch = try ScratchDirectory()
        let faults = FaultPlan()
        faults.fail(.openat, with: .noSpace)
        let path = scratch.path.bytes
        let seen = Outcomes()
        @Sendable func attempt(_ label: String) {
            let outcome: Errno?
            do throws(Errno) {
                try FileDescriptor.currentWorkingDirectory.openDirectory(path).close()
                outcome = nil
            } catch {
                outcome = error
            }
            seen.record(label, outcome)
        }
        faults.arm {
            attempt("armed")
            JoinableThread(name: "test-inherits") { attempt("joinable") }.join()
            let plain = DispatchSemaphore(value: 0)
            Thread {
                attempt("plain")
                plain.signal()
            }.start()
            plain.wait()
        }
        attempt("after")
        let outcomes = seen.all
        #expect(outcomes["armed"] == .some(.noSpace))
        #expect(outcomes["joinable"] == .some(.noSpace))
        #expect(outcomes["plain"] == .some(nil))
        #expect(outcomes["after"] == .some(nil))
        #expect(faults.calls(.openat).count == 2)
    }

    /// A queue with one event, read under faults: EINTR is retried inside the wrapper's loop
    /// and the event arrives; EAGAIN reads as "nothing queued" and the event is still there
    /// for the next read.
    @Test("the inotify read: EINTR is retried, EAGAIN loses nothing")
    func inotifyReadUnderInterruptAndAgain() throws {
        let scratch = try ScratchDirectory()
        let inotify = try InotifyDescriptor()
        defer { inotify.close() }
        let directory = try FileDescriptor.currentWorkingDirectory.openDirectory(scratch.path.bytes)
        defer { directory.close() }
        _ = try inotify.addWatch(directory, mask: [.create])
        // A directory: one create event (Foundation writes files through a temporary name).
        try FileManager.default.createDirectory(atPath: scratch.file("new"), withIntermediateDirectories: false)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var events: [InotifyEvent] = []

        let faults = FaultPlan()
        faults.fail(.read, with: .resourceTemporarilyUnavailable, times: 1, descriptor: inotify.descriptor.rawValue)
        faults.fail(.read, with: .interrupted, times: 2, descriptor: inotify.descriptor.rawValue)
        let first = try faults.arm { () throws(Errno) in try inotify.readEvents(buffer: &buffer, into: &events) }
        #expect(!first && events.isEmpty, "EAGAIN is an empty queue, not an error")
        let second = try faults.arm { () throws(Errno) in try inotify.readEvents(buffer: &buffer, into: &events) }
        #expect(second)
        #expect(events.map { Array($0.name) } == ["new".bytes])
        #expect(
            faults.calls(.read).map(\.injected) == [.resourceTemporarilyUnavailable, .interrupted, .interrupted, nil],
            "EINTR is retried by the one loop in valueOrErrno, twice here")
    }
}

/// What each thread saw, written from several threads.
private final class Outcomes: Sendable {
    private let seen = Mutex<[String: Errno?]>([:])
    func record(_ label: String, _ outcome: Errno?) { seen.withLock { $0[label] = outcome } }
    var all: [String: Errno?] { seen.withLock { $0 } }
}
