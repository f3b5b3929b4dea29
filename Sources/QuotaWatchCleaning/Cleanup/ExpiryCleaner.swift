import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Removes the candidates last modified more than `age` ago.
package struct ExpiryCleaner: Cleaner {
    package let name: String
    package let age: Duration
    let nowNanoseconds: @Sendable () -> Int64

    package init(name: String = "expire", age: Duration, nowNanoseconds: @escaping @Sendable () -> Int64) {
        self.name = name
        self.age = age
        self.nowNanoseconds = nowNanoseconds
    }

    package func clean(_ context: CleanupContext) throws -> CleanupResult {
        var result = CleanupResult()
        for candidate in EvictionSelection.olderThan(context.candidates, age: age, nowNanoseconds: nowNanoseconds()) {
            try context.cancellation.check()
            guard result.record(context.remover.remove(candidate), path: candidate.path, inDirectory: nil) else {
                break
            }
        }
        return result
    }
}
