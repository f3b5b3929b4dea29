/// Rules that can never act, as `check-config` (and `run`, at start and on SIGHUP) warns of
/// them: each is a valid config that does not do what it says.
///
/// - a leftover rule whose files are all protected (a quota with `protect: true` over `tmp`
///   beside the `cfnetwork-download` rule: every download would be skipped as protected);
/// - a cleaner whose path is protected;
/// - an `evict` cleaner whose path takes no quota directory (eviction acts only on quota
///   directories, so it never runs).
///
/// What a glob names is judged from one path it matches (``PathGlob/samplePath``): a rule
/// whose sample is protected is covered by the protection as written.
package enum ConfigWarnings {
    package static func of(_ config: PolicyConfig) -> [String] {
        let profileApplies = config.profile != .none
        let protection = CleanupProtection(
            config: config, profileApplies: profileApplies, extraGlobs: config.cleanup.protect)
        var warnings: [String] = []
        let leftoverCleaner = config.cleanup.cleaners.contains { if case .leftovers = $0 { true } else { false } }
        for rule in config.effectiveLeftoverRules(profileApplies: profileApplies) where !rule.protect {
            for glob in rule.paths {
                guard let sample = glob.samplePath, protection.isProtected(sample) else { continue }
                let how =
                    leftoverCleaner ? "the leftovers cleaner skips every one as protected" : "nothing removes them"
                warnings.append(
                    "leftover rule '\(rule.name)' (\(glob.text)) lies under a protected path: \(how). "
                        + "Drop 'protect: true' from the quota (or the protect glob) that covers it, "
                        + "or disable the rule under leftovers.disable")
            }
        }
        let quotaGlobs = config.quotas.map(\.glob) + config.budgets.map(\.glob)
        for cleaner in config.cleanup.cleaners {
            let glob: PathGlob?
            switch cleaner {
            case .evict(_, let path, _, _): glob = path
            case .trim(_, let path, _), .expire(_, let path, _): glob = path
            case .leftovers, .command, .registered: continue
            }
            guard let glob, let sample = glob.samplePath else { continue }
            if protection.isProtected(sample) {
                warnings.append(
                    "cleaner '\(cleaner.name)' (\(glob.text)) works on a protected path: it can never remove "
                        + "anything there. Drop the protection that covers it, or the cleaner")
            }
            if case .evict = cleaner, !quotaGlobs.contains(where: { $0.matches(sample) }) {
                warnings.append(
                    "cleaner '\(cleaner.name)' evicts from quota directories matching \(glob.text), and no quota "
                        + "takes such a directory: it never runs. Add a quota on \(glob.text), or fix its path")
            }
        }
        return warnings
    }
}
