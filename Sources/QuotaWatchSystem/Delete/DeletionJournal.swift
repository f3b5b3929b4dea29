import QuotaWatchCore

/// Why the audit record of an intent could not be written; the name was not removed.
package struct DeletionJournalError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package init(message: String) { self.message = message }

    package var description: String { message }
}

/// Where the deleter records each removal: an intent that must be durable before the name is
/// removed, then the outcome. The audit log implements it.
package protocol DeletionJournal {
    /// Records that `entry` is about to be removed. It must be on disk when this returns;
    /// throwing stops the deletion before the name is touched.
    func recordIntent(_ entry: DeletionEntry) throws(DeletionJournalError)
    /// Records what became of a recorded intent: nil for removed, else why not.
    func recordOutcome(_ entry: DeletionEntry, failure: SkipReason?)
}
