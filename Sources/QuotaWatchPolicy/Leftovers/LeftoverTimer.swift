/// The life of one `idle-file` candidate, as pure decisions the engine acts on.
///
/// A candidate's deadline is its last write (its last activity, ``FileActivity``) + the rule's
/// age. Staleness makes no event, so the engine sets a timer for the deadline; at the deadline
/// it asks the kernel once, for this file only, whether a process has it open for writing, and
/// feeds the answer here.
/// A leftover that is written again stops being one and starts a new wait.
package struct LeftoverTimer: Sendable, Hashable {
    package enum Phase: Sendable, Hashable {
        /// Written recently or held open: an in-progress download, never reported.
        case waiting
        /// Reported as a leftover (once).
        case reported
    }

    package let age: Duration
    package private(set) var lastWrite: Moment
    package private(set) var phase: Phase = .waiting
    /// When to look again; nil once reported (only a new write brings it back).
    package private(set) var deadline: Moment?

    package init(age: Duration, lastWrite: Moment) {
        self.age = age
        self.lastWrite = lastWrite
        self.deadline = lastWrite + age
    }

    /// The file was written at `moment`. Returns true when it was a reported leftover and so
    /// stops being one.
    package mutating func written(at moment: Moment) -> Bool {
        if moment > lastWrite { lastWrite = moment }
        deadline = lastWrite + age
        defer { phase = .waiting }
        return phase == .reported
    }

    /// What the engine should do at `now`.
    package enum Decision: Sendable, Hashable {
        /// Nothing yet; the timer should fire at this moment.
        case wait(until: Moment)
        /// Ask whether the file is open for writing, then call ``checked(at:openForWriting:)``.
        case checkOpenWriters
        /// Nothing more to do until the file is written again.
        case idle
    }

    package func decide(at now: Moment) -> Decision {
        guard phase == .waiting, let deadline else { return .idle }
        return now < deadline ? .wait(until: deadline) : .checkOpenWriters
    }

    /// Feeds the open-writer check made at `now`. Returns the idle time to report when the
    /// file has just become a leftover. A file held open waits one more age: a slow writer
    /// that writes again moves the deadline anyway.
    package mutating func checked(at now: Moment, openForWriting: Bool) -> Duration? {
        guard phase == .waiting, let deadline, now >= deadline else { return nil }
        if openForWriting {
            self.deadline = now + age
            return nil
        }
        phase = .reported
        self.deadline = nil
        return now - lastWrite
    }
}
