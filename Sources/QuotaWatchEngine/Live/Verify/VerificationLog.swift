import QuotaWatchCore

/// What the log says of the verification sweep's corrections: each one with its path, both
/// sizes and what its reason means, the first ``perPass`` of a pass, then that the rest are
/// only counted (a file system that reports nothing would otherwise fill the log).
package enum VerificationLog {
    package static let perPass: UInt64 = 20

    /// The lines for the corrections of one slice, `earlier` being those the same pass had
    /// already found.
    package static func lines(for corrections: [VerificationSweep.Correction], earlier: UInt64) -> [String] {
        var lines: [String] = []
        for (index, correction) in corrections.enumerated() {
            let number = earlier + UInt64(index)
            if number < perPass { lines.append(line(for: correction)) }
            if number == perPass {
                lines.append(
                    "verification sweep: more than \(perPass) corrections in this pass; the rest are counted "
                        + "(status --json, quotawatch_verify_corrections_total) but not logged")
            }
        }
        return lines
    }

    package static func line(for correction: VerificationSweep.Correction) -> String {
        let path = correction.path.isEmpty ? "." : EscapedName.string(correction.path)
        let sizes =
            if let after = correction.after {
                "allocated \(correction.before.allocated) → \(after.allocated) B, "
                    + "apparent \(correction.before.apparent) → \(after.apparent) B"
            } else {
                "allocated \(correction.before.allocated) B, apparent \(correction.before.apparent) B → gone"
            }
        return "verification sweep corrected '\(path)': \(sizes): \(meaning(of: correction.reason))"
    }

    static func meaning(of reason: VerificationSweep.Reason) -> String {
        let bug =
            "on a local file system (ext4, xfs, btrfs, tmpfs) nothing else explains it: please report this line "
            + "as a QuotaWatch bug"
        switch reason {
        case .allocation:
            return "only its allocation moved, after the late re-stats (writeback, a hole punched); no write was missed"
        case .size:
            return "its size changed and no event said so. Writes through a shared mapping, and through a hard "
                + "link outside ROOT, raise none; a network or FUSE file system may not report others. Otherwise, "
                + bug
        case .replaced:
            return "the name was removed or now leads to another file, and no event said so. A network or FUSE "
                + "file system may not report changes made elsewhere. Otherwise, " + bug
        case .directory:
            return "the directory's own size changed and no event said so. A network or FUSE file system may "
                + "not report changes made elsewhere. Otherwise, " + bug
        }
    }
}
