import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Removes every candidate the leftover rules found (a directory with what is below it).
package struct LeftoverCleaner: Cleaner {
    package let name: String

    package init(name: String = "leftovers") { self.name = name }

    package func clean(_ context: CleanupContext) throws -> CleanupResult {
        var result = CleanupResult()
        for candidate in context.candidates {
            try context.cancellation.check()
            guard result.record(context.remover.remove(candidate), path: candidate.path, inDirectory: nil) else {
                break
            }
        }
        return result
    }
}
