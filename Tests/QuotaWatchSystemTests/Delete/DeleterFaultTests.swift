import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import Testing

/// The deleter's `openat2` walk under injected failures: a transient one is diagnosed by the
/// per-component walk and the removal goes on only if every component checks out; a lasting
/// one refuses, naming why; a kernel without openat2 falls back to the per-component walk.
@Suite("Deleter: a failing openat2")
struct DeleterFaultTests {
    private func victim() throws -> (DeleterFixture, FileIdentity) {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory("a".bytes)
        try fixture.makeDirectory("a/b".bytes)
        return (fixture, try fixture.makeFile("a/b/victim".bytes))
    }

    @Test("a transient EXDEV on the joined walk: each component is checked afresh, then removed")
    func transientFailureIsDiagnosedComponentByComponent() throws {
        let (fixture, identity) = try victim()
        let deleter = try fixture.deleter(walk: .openat2, checkWriters: false)
        let faults = FaultPlan()
        faults.fail(.openat2, with: .crossDevice, times: 1, path: "a/b")
        let outcome = faults.arm {
            deleter.remove("a/b/victim".bytes, expecting: identity, journal: RecordingJournal())
        }
        guard case .removed = outcome else {
            Issue.record("expected a removal, got \(outcome)")
            return
        }
        #expect(try !fixture.exists("a/b/victim".bytes))
        let walked = faults.calls(.openat2).map { $0.path.map { String(decoding: $0, as: UTF8.self) } }
        #expect(walked == ["a/b", "a", "b"], "the joined walk failed, then one openat2 per component")
        #expect(faults.calls(.openat2).first?.injected == .crossDevice)
    }

    @Test(
        "a lasting failure refuses the removal, keeps the file, journals nothing, and says why",
        arguments: [
            (Errno.crossDevice, SkipReason.mountPoint("a/b".bytes)),
            (Errno.tooManySymbolicLinks, SkipReason.symlinkInPath("a/b".bytes)),
            (Errno.permissionDenied, SkipReason.cannotRemove(.permissionDenied)),
            (Errno(rawValue: EIO), SkipReason.cannotRemove(Errno(rawValue: EIO))),
        ])
    func lastingFailureRefuses(error: Errno, reason: SkipReason) throws {
        let (fixture, identity) = try victim()
        let deleter = try fixture.deleter(walk: .openat2, checkWriters: false)
        let journal = RecordingJournal()
        let faults = FaultPlan()
        faults.fail(.openat2, with: error, path: "b")
        let outcome = faults.arm { deleter.remove("a/b/victim".bytes, expecting: identity, journal: journal) }
        #expect(outcome == .skipped(reason))
        #expect(try fixture.exists("a/b/victim".bytes))
        #expect(journal.records.isEmpty, "no intent for a removal that never started")
        if case .skipped(let skipped) = outcome {
            #expect(skipped.description == reason.description)
            #expect(!skipped.description.isEmpty)
        }
        #expect(!faults.calls(.openat2).isEmpty)
        #expect(faults.calls(.unlinkat).isEmpty, "nothing was unlinked")
    }

    @Test("EAGAIN from openat2 (a rename raced the lookup) is retried, a few times only")
    func againIsRetriedThenGivenUp() throws {
        let (fixture, identity) = try victim()
        let deleter = try fixture.deleter(walk: .openat2, checkWriters: false)
        let faults = FaultPlan()
        faults.fail(.openat2, with: .resourceTemporarilyUnavailable, times: 3, path: "a/b")
        let outcome = faults.arm {
            deleter.remove("a/b/victim".bytes, expecting: identity, journal: RecordingJournal())
        }
        guard case .removed = outcome else {
            Issue.record("expected a removal after the retries, got \(outcome)")
            return
        }
        #expect(faults.calls(.openat2).map(\.injected) == [.again, .again, .again, nil])

        let (other, otherIdentity) = try victim()
        let stubborn = try other.deleter(walk: .openat2, checkWriters: false)
        let always = FaultPlan()
        always.fail(.openat2, with: .resourceTemporarilyUnavailable)  // every path: the diagnosis too
        let refused = always.arm {
            stubborn.remove("a/b/victim".bytes, expecting: otherIdentity, journal: RecordingJournal())
        }
        #expect(refused == .skipped(.cannotRemove(.resourceTemporarilyUnavailable)))
        #expect(try other.exists("a/b/victim".bytes))
        #expect(
            always.calls(.openat2).count == 9 + 9, "nine tries of the joined walk, nine of the diagnosis' first step")
    }

    @Test("no openat2 in the kernel (ENOSYS at the probe): the per-component walk removes it")
    func missingOpenat2FallsBack() throws {
        let (fixture, identity) = try victim()
        let faults = FaultPlan()
        faults.fail(.openat2, with: .functionNotImplemented)
        let outcome = try faults.arm { () throws in
            try fixture.deleter(walk: .automatic, checkWriters: false).remove(
                "a/b/victim".bytes, expecting: identity, journal: RecordingJournal())
        }
        guard case .removed = outcome else {
            Issue.record("expected a removal, got \(outcome)")
            return
        }
        #expect(faults.calls(.openat2).count == 1, "only the probe")
        #expect(faults.calls(.openat).contains { $0.path == "b".bytes })
    }
}

extension Errno {
    fileprivate static let again = Errno.resourceTemporarilyUnavailable
}
