import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import Testing

/// A removal the kernel refuses says why in words a user can act on: unlink needs write
/// permission on the *directory*, so "Permission denied" alone sends the reader to the file.
@Suite("Deleter: why the kernel refused a removal")
struct RemovalFailureTests {
    @Test(
        "each refusal of unlinkat is kept with its usual cause named",
        arguments: [
            (Errno.permissionDenied, "its directory is not writable by this user"),
            (Errno.notPermitted, "immutable or append-only (see lsattr)"),
            (Errno.readOnlyFileSystem, "mounted read-only"),
            (Errno.busy, "in use as a mount point"),
        ])
    func refusedUnlinkNamesTheCause(error: Errno, cause: String) throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory("t".bytes)
        try fixture.makeDirectory("t/x".bytes)
        _ = try fixture.makeFile("t/x/held".bytes)
        let identity = try #require(try fixture.identity("t".bytes))
        let deleter = try fixture.deleter(checkWriters: false)
        let faults = FaultPlan()
        faults.fail(.unlinkat, with: error, path: "held")
        let outcome = faults.arm {
            deleter.remove("t".bytes, expecting: identity, journal: RecordingJournal())
        }
        guard case .removed(let removal) = outcome, let kept = removal.kept.first else {
            Issue.record("expected the tree removed in part with its file kept, got \(outcome)")
            return
        }
        #expect(kept.reason == .cannotRemove(error))
        #expect(kept.reason.description.hasPrefix(error.description), "\(kept.reason)")
        #expect(kept.reason.description.contains(cause), "\(kept.reason)")
        #expect(try fixture.exists("t/x/held".bytes))
    }

    @Test("an error with no usual cause is the kernel's message alone")
    func otherErrorsStayPlain() {
        #expect(Errno(rawValue: EIO).removalFailure == Errno(rawValue: EIO).description)
        #expect(SkipReason.cannotRemove(Errno(rawValue: EIO)).description == Errno(rawValue: EIO).description)
    }
}
