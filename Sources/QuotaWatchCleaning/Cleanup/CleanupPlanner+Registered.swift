import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// What each registered cleaner gets for one trigger, built on the engine thread with the
/// rest of the plan: only the cleaners whose paths the trigger concerns, each with the files
/// below its own paths.
extension CleanupPlanner {
    /// - a breach concerns the cleaners whose paths are the breached directory, inside it or
    ///   above it: the directory (with its eviction target) and its files inside their paths;
    /// - a leftover, the cleaners whose paths hold it: that file;
    /// - any other trigger (a level change, the periodic run, by hand), every cleaner with a
    ///   path in the tree: its files, and its directory's quota when one of its paths has one.
    mutating func registeredInputs(
        for trigger: CleanupTrigger, breached: CleanupDirectory?, live: inout LiveTree<some LiveFileSystem>
    ) -> [UInt64: CleanupInputs] {
        var inputs: [UInt64: CleanupInputs] = [:]
        for registration in registrations {
            switch trigger {
            case .breach(let path):
                guard var breached, RegisterCleanerRequest.concerns(registration.paths, path) else { continue }
                breached.target = target(
                    breached.effectiveLimit, CleanupSettings.defaultTargetRatio, rule: breachedRule)
                let scopes = registration.paths.map { RegisterCleanerRequest.isAtOrBelow($0, path) ? $0 : path }
                inputs[registration.id] = CleanupInputs(
                    level: level, directory: breached, candidates: candidates(below: scopes, live: &live))
            case .leftover(let path, let rule):
                guard registration.paths.contains(where: { RegisterCleanerRequest.isAtOrBelow(path, $0) }) else {
                    continue
                }
                inputs[registration.id] = CleanupInputs(
                    level: level, candidates: live.cleanupEntry(at: path, rule: rule).map { [$0] } ?? [])
            case .level, .periodic, .appVersion, .manual:
                let present = registration.paths.filter {
                    live.tree.directory(atComponents: PathComponents.split($0)) != nil
                }
                guard !present.isEmpty else { continue }
                inputs[registration.id] = CleanupInputs(
                    level: level, directory: quotaDirectory(among: present, live: live),
                    candidates: candidates(below: present, live: &live))
            }
        }
        return inputs
    }

    /// The files below each of `paths` that is a directory now, each once.
    private mutating func candidates(
        below paths: [[UInt8]], live: inout LiveTree<some LiveFileSystem>
    ) -> [CleanupCandidate] {
        var seen: Set<[UInt8]> = []
        var found: [CleanupCandidate] = []
        for path in paths {
            guard let directory = live.tree.directory(atComponents: PathComponents.split(path)) else { continue }
            for candidate in files(below: directory, live: &live) where seen.insert(candidate.path).inserted {
                found.append(candidate)
            }
        }
        return found
    }

    /// The first of `paths` that carries a quota, with the lowest limit in force on it.
    private func quotaDirectory(among paths: [[UInt8]], live: LiveTree<some LiveFileSystem>) -> CleanupDirectory? {
        guard let monitor else { return nil }
        let rows = monitor.quotaRows(level: level, atNanoseconds: now)
        for path in paths {
            guard let row = rows.filter({ $0.path == path }).min(by: { $0.effectiveLimit < $1.effectiveLimit }),
                let directory = live.tree.directory(atComponents: PathComponents.split(path))
            else { continue }
            let tally = live.tree.tally(of: directory)
            return CleanupDirectory(
                path: path, used: row.size == .allocated ? tally.allocated : tally.apparent, size: row.size,
                effectiveLimit: row.effectiveLimit,
                target: target(row.effectiveLimit, CleanupSettings.defaultTargetRatio, rule: row.rule), tally: tally)
        }
        return nil
    }
}
