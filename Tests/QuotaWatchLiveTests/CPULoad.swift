import Foundation
import Synchronization

/// Busy loops beside a test, to run it as a loaded machine would (QUOTAWATCH_CPU_LOAD=N
/// starts N threads that only spin): the daemon's threads then lose the CPU at any point,
/// which is how races between its crawl, its reader and the kernel's queue show.
final class CPULoad: Sendable {
    private let stopped = Atomic<Bool>(false)
    let threads: Int

    /// QUOTAWATCH_CPU_LOAD as a number of threads (0 when unset or not a number).
    static var requested: Int {
        Int(ProcessInfo.processInfo.environment["QUOTAWATCH_CPU_LOAD"] ?? "").map { max(0, $0) } ?? 0
    }

    init(threads: Int) {
        self.threads = threads
        for _ in 0..<threads {
            Thread.detachNewThread { [self] in
                while !stopped.load(ordering: .relaxed) {}
            }
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    deinit { stopped.store(true, ordering: .relaxed) }
}
