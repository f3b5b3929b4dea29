import Foundation
import Glibc
import QuotaWatchTestSupport

/// A thread that keeps one descriptor open and appends to it in a loop, as a logging process
/// does, until it is paused or finished.
///
/// ``pause(afterWrites:)`` is the barrier: it returns only once the thread has finished its
/// current write and is waiting, so the file holds still while the test syncs and scans.
final class AppendingWriter: @unchecked Sendable {
    // Everything below is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var writes = 0
    private var pauseRequested = false
    private var isPaused = false
    private var finishRequested = false
    private var isFinished = false
    private var started = false
    private var failure: CInt?
    private let descriptor: CInt

    /// Takes ownership of `descriptor`, which the thread closes when it finishes.
    init(descriptor: CInt) {
        self.descriptor = descriptor
    }

    var writeCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return writes
    }

    func start() {
        condition.lock()
        started = true
        condition.unlock()
        let thread = Thread { [self] in run() }
        thread.name = "appending-writer"
        thread.start()
    }

    /// Waits until the thread has made `count` writes in all, then until it stands still.
    func pause(afterWrites count: Int, timeout: TimeInterval = 60) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while writes < count && failure == nil && !isFinished {
            guard condition.wait(until: deadline) else {
                throw DaemonError("the writer made only \(writes) of \(count) writes within \(timeout) s")
            }
        }
        pauseRequested = true
        condition.broadcast()
        while !isPaused && failure == nil && !isFinished {
            guard condition.wait(until: deadline) else { throw DaemonError("the writer did not pause") }
        }
        if let failure { throw SystemCallError("write", "the appending writer's file", errno: failure) }
    }

    func resume() {
        condition.lock()
        pauseRequested = false
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the thread after its current write and waits until it has closed the file.
    func finish() {
        condition.lock()
        defer { condition.unlock() }
        guard started else {
            if !isFinished { close(descriptor) }
            isFinished = true
            return
        }
        finishRequested = true
        condition.broadcast()
        while !isFinished { condition.wait() }
    }

    private func run() {
        // Sizes that leave the end of the file at ever different offsets within a block.
        let chunk = [UInt8](repeating: 0x41, count: 20_000)
        var size = 1
        while true {
            condition.lock()
            while pauseRequested && !finishRequested {
                isPaused = true
                condition.broadcast()
                condition.wait()
            }
            isPaused = false
            if finishRequested {
                close(descriptor)
                isFinished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()

            size = (size * 7 + 1_234) % chunk.count + 1
            let written = chunk.withUnsafeBytes { raw in write(descriptor, raw.baseAddress!, size) }
            let error = written < 0 ? errno : 0

            condition.lock()
            if written < 0 && error != EINTR {
                failure = error
                pauseRequested = true
            } else if written > 0 {
                writes += 1
            }
            condition.broadcast()
            condition.unlock()
        }
    }
}
