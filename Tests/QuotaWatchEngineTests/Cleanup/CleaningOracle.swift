import QuotaWatchCore
import QuotaWatchPolicy

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// What may never happen when QuotaWatch cleans, checked after every run of
/// ``CleaningSimulation`` against what the simulated writers really did:
///
/// - a file goes only when a rule that applies to it asks, at that moment: a leftover only
///   after its writer has been idle for the rule's age (whatever its mtime says), a cache
///   file only from a quota directory over its effective limit (by hand: in warning or
///   breach), and never by eviction in a leftover run;
/// - a cleaned directory ends at or under its target (unless a file was held open), and no
///   more than one file below it;
/// - no inode is deleted twice;
/// - a cleaner after another gets a fresh context: none of its candidates is gone, and its
///   directory's use is the one the disk has then;
/// - each quota state change is announced once: a directory never gets the same state twice
///   in a row.
struct CleaningOracle {
    struct PlannedQuota {
        var used: UInt64
        var effectiveLimit: UInt64
        var state: QuotaState
        var target: UInt64
    }

    var violations: [String] = []
    /// Deletions judged, by cleaner and trigger ("evict quota_breach"): what the workload reached.
    var judged: [String: Int] = [:]
    /// The last real write of each file, by the simulated writers' own clock.
    var lastWrite: [[UInt8]: Int64] = [:]
    private var planned: [[UInt8]: PlannedQuota] = [:]
    private var deletedInodes: Set<UInt64> = []
    private var lastState: [[UInt8]: String] = [:]
    private var announcedCount = 0

    /// The turn is about to plan: what each quota directory is now.
    mutating func planning(_ sim: CleaningSimulation) {
        planned = [:]
        for row in sim.p.monitor.quotaRows(level: sim.p.monitor.diskLevel, atNanoseconds: sim.p.h.now) {
            guard let directory = sim.p.h.live.tree.directory(atComponents: PathComponents.split(row.path)) else {
                continue
            }
            let target = min(
                CleanupDirectory.defaultTarget(effectiveLimit: row.effectiveLimit),
                CleanupPlanner.okTarget(row.effectiveLimit, QuotaThresholds()))
            planned[row.path] = PlannedQuota(
                used: sim.p.h.live.tree.tally(of: directory).allocated, effectiveLimit: row.effectiveLimit,
                state: row.state, target: target)
        }
        checkAnnouncements(sim.announced)
    }

    private mutating func checkAnnouncements(_ events: [PolicyEvent]) {
        for event in events.dropFirst(announcedCount) {
            guard case .quota(let state, let path, _, _, _, _, _, _) = event.detail else { continue }
            if lastState[path] == state.rawValue {
                violations.append("\(String(decoding: path, as: UTF8.self)) announced \(state.rawValue) twice in a row")
            }
            lastState[path] = state.rawValue
        }
        announcedCount = events.count
    }

    private static func quotaDirectory(of path: [UInt8]) -> [UInt8] {
        Array(path.split(separator: UInt8(ascii: "/")).prefix(2).joined(separator: [UInt8(ascii: "/")]))
    }

    mutating func ran(
        _ summary: CleanupSummary, removed: [SimulatedDisk.Removed], refused: [[UInt8]],
        appCalls: [SimulatedDisk.AppCall]
    ) {
        let held = Set(refused.map(Self.quotaDirectory(of:)))
        var freedBy: [[UInt8]: (evict: UInt64, all: UInt64, largest: UInt64)] = [:]
        for removal in removed {
            let name = String(decoding: removal.path, as: UTF8.self)
            judged["\(removal.cleaner) \(removal.trigger)", default: 0] += 1
            if !deletedInodes.insert(removal.inode).inserted { violations.append("\(name) deleted twice") }
            let directory = Self.quotaDirectory(of: removal.path)
            switch removal.cleaner {
            case "leftovers":
                let idle = removal.wall - (lastWrite[removal.path] ?? .max)
                if !name.hasPrefix("tmp/") || idle < CleaningSimulation.leftoverAge.clampedNanoseconds {
                    violations.append("leftovers removed \(name), idle \(Double(idle) / 1e9) s")
                }
            case "evict":
                guard let quota = planned[directory] else {
                    violations.append("evict removed \(name) outside any quota directory")
                    continue
                }
                let asked =
                    switch removal.trigger {
                    case "leftover": false
                    case "manual": quota.state != .ok
                    default: quota.used > quota.effectiveLimit
                    }
                if !asked {
                    violations.append(
                        "evict removed \(name) on a \(removal.trigger) run while its directory was at \(quota.used) B "
                            + "of \(quota.effectiveLimit) B (\(quota.state.rawValue))")
                }
                var freed = freedBy[directory] ?? (0, 0, 0)
                freed.evict += removal.allocated
                freed.largest = max(freed.largest, removal.allocated)
                freedBy[directory] = freed
            default:
                break
            }
            if removal.cleaner != "evict", planned[directory] != nil {
                freedBy[directory, default: (0, 0, 0)].all += removal.allocated
            }
        }
        for (directory, freed) in freedBy where freed.evict > 0 {
            guard let quota = planned[directory] else { continue }
            let afterEvict = quota.used - freed.evict
            let after = afterEvict - min(afterEvict, freed.all)
            let name = String(decoding: directory, as: UTF8.self)
            // A file held open is kept: eviction may then end above its target.
            if after > quota.target, !held.contains(directory) {
                violations.append("\(name) ended at \(after) B, above its target \(quota.target) B")
            }
            if afterEvict + freed.largest <= quota.target {
                violations.append("\(name) was evicted to \(afterEvict) B, more than one file under \(quota.target) B")
            }
        }
        for call in appCalls { checkFreshness(call) }
        _ = summary
    }

    private mutating func checkFreshness(_ call: SimulatedDisk.AppCall) {
        for candidate in call.context.candidates where !call.present.contains(candidate.path) {
            violations.append("app was offered \(String(decoding: candidate.path, as: UTF8.self)), already gone")
        }
        guard let directory = call.context.directory, let quota = planned[directory.path] else { return }
        let earlier = call.removedBefore.filter { Self.quotaDirectory(of: $0.path) == directory.path }
        let expected = quota.used - earlier.reduce(0) { $0 + $1.allocated }
        if directory.used != expected {
            violations.append(
                "app got \(String(decoding: directory.path, as: UTF8.self)) at \(directory.used) B, "
                    + "the disk has \(expected) B")
        }
        if expected <= directory.target {
            violations.append("app was called for \(String(decoding: directory.path, as: UTF8.self)) at its target")
        }
    }
}
