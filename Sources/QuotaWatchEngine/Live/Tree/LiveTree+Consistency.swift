import Foundation
import QuotaWatchCore

/// `QUOTAWATCH_CHECK_TREE=1`: the daemon checks the tally tree's bookkeeping after every change
/// it applies and every flush, and stops at the first broken invariant, naming the change.
/// For the randomized tests and their sweep (docs/testing.md); O(tree) per change, so never on
/// by default.
extension LiveTree {
    func checkConsistency(after step: @autoclosure () -> String) {
        guard consistencyChecksEnabled else { return }
        let problems = tree.consistencyViolations()
        guard !problems.isEmpty else { return }
        fatalError("the tally tree broke after \(step()): \(problems.joined(separator: "; "))")
    }
}

/// Read once: the check sits on the per-change path, where it must cost one branch when off.
private let consistencyChecksEnabled = ProcessInfo.processInfo.environment["QUOTAWATCH_CHECK_TREE"] == "1"
