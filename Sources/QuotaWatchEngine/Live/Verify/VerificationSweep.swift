import QuotaWatchCore

/// The background verification sweep (`run --verify-every`): every directory and file of the
/// tree stat'ed again, a slice at a time, to find what no event reports: a write through a
/// shared mapping never closed, a write through a name made outside ROOT, a file system that
/// misses events, a bug. This is the bookkeeping only (what is left of the pass, when the next
/// slice is due, what the passes found); ``LiveTree/verifySlice(wallNow:)`` does the stats.
///
/// The cost is bounded by CPU rather than by a rate: after a slice that took `c` of the engine
/// thread's CPU, the next waits `c / cpuBudget`, so the sweep uses at most that share of a core
/// however fast stats are, and the events are handled between slices as always. Slices grow
/// (or shrink) until each takes about ``Settings/sliceCPU``: the loop's own wake-up around a
/// slice is not charged, so the fewer wake-ups a second at the same names a second, the closer
/// the whole cost keeps to the budget (1 024 names a slice woke the loop 4.5 times a second at
/// 1 % and cost 1.10 % of a core).
package struct VerificationSweep: Sendable {
    package struct Settings: Sendable, Equatable {
        /// From the start of one pass to the start of the next; zero turns the sweep off.
        package var every: Duration
        /// The share of one core the sweep may use, in (0, 1].
        package var cpuBudget: Double
        /// Names stat'ed in the first slice; later slices follow their measured cost.
        package var sliceSize: Int
        /// The CPU a slice aims at: at 1 % the loop wakes for the sweep about once a second.
        package var sliceCPU: Duration
        /// A difference whose inode changed less than this long ago may still have its event
        /// on the way: it is corrected, but not counted as something no event reported.
        package var quietFor: Duration

        package static let off = Settings(every: .zero)

        package init(
            every: Duration = .seconds(6 * 3600), cpuBudget: Double = 0.01, sliceSize: Int = 1024,
            sliceCPU: Duration = .milliseconds(10), quietFor: Duration = .seconds(2)
        ) {
            self.every = every
            self.cpuBudget = cpuBudget
            self.sliceSize = sliceSize
            self.sliceCPU = sliceCPU
            self.quietFor = quietFor
        }
    }

    /// Why a correction was needed, as far as the stat tells.
    package enum Reason: String, Sendable, CaseIterable, Codable {
        /// Only the allocation moved: writeback after the late re-stats, a hole punched, a
        /// file system that allocates on its own schedule.
        case allocation
        /// The size moved with no event: a write through a mapping, or through a name outside
        /// ROOT, or on a file system that does not report writes.
        case size
        /// A name of the tree is gone, or leads to another inode or kind now, with no event.
        case replaced
        /// A directory's own size moved with no event.
        case directory
    }

    /// One difference found and corrected, older than ``Settings/quietFor``.
    package struct Correction: Sendable, Equatable {
        /// Relative to the root, raw.
        package var path: [UInt8]
        package var before: Usage
        /// Nil when the name is gone or is a directory now.
        package var after: Usage?
        package var reason: Reason

        package init(path: [UInt8], before: Usage, after: Usage?, reason: Reason) {
            self.path = path
            self.before = before
            self.after = after
            self.reason = reason
        }
    }

    /// One pass over the tree, going on or finished; times from the engine's clock and the wall.
    package struct Pass: Sendable, Equatable {
        package var number: UInt64
        package var started: UInt64
        package var startedWall: Int64
        package var endedWall: Int64?
        /// Directories and files stat'ed.
        package var checked: UInt64 = 0
        package var corrections: UInt64 = 0
    }

    package let settings: Settings
    package private(set) var current: Pass?
    package private(set) var last: Pass?
    /// When the next slice (or the next pass) is due; nil when the sweep is off.
    package private(set) var nextDue: UInt64?
    package private(set) var corrections: [Reason: UInt64] = [:]
    /// Names stat'ed and passes finished since start.
    package private(set) var checkedTotal: UInt64 = 0
    package private(set) var passesFinished: UInt64 = 0
    /// Names the next slice may look at: ``Settings/sliceSize`` at first, then as many as took
    /// about ``Settings/sliceCPU`` in the last full slice, at most twice or half the last size.
    package private(set) var sliceNames: Int
    /// The most names one slice looks at, whatever the measured cost: a slice holds up events.
    static let maxSliceNames = 65_536
    /// Names given out in the slice going on.
    private var givenInSlice = 0
    /// Directories of the pass not yet looked at, the next one last.
    private var directories: [DirectoryID] = []
    /// Files of the directory being looked at not yet stat'ed, the next one last.
    private var files: [FileID] = []
    private var filesDirectory: DirectoryID?
    /// Files whose difference was too recent to tell from a write whose event is on its way,
    /// each looked at once more when its wall time has come.
    private var laterChecks: [(file: FileID, directory: DirectoryID, due: Int64)] = []
    /// Nanoseconds until the first later check, when a slice ended with nothing else to do.
    private var waitAfterSlice: UInt64?

    /// The first pass starts one period after `now`: the crawl has just looked at everything.
    package init(_ settings: Settings, now: UInt64) {
        self.settings = settings
        sliceNames = min(max(settings.sliceSize, 1), Self.maxSliceNames)
        nextDue = settings.every == .zero ? nil : Saturating.sum(now, settings.every.nanoseconds)
    }

    package var isOn: Bool { nextDue != nil }

    package func isDue(_ now: UInt64) -> Bool { nextDue.map { now >= $0 } ?? false }

    /// Starts a pass over `directories`, the root first.
    package mutating func begin(_ directories: [DirectoryID], now: UInt64, wallNow: Int64) {
        self.directories = directories.reversed()
        files = []
        filesDirectory = nil
        current = Pass(number: (last?.number ?? 0) + 1, started: now, startedWall: wallNow)
    }

    /// The next name to look at: a directory (its own inode, then its files), or a file of
    /// the directory last given; nil once the pass has looked at everything.
    package mutating func next(wallNow: Int64) -> Target? {
        if let first = laterChecks.first, first.due <= wallNow {
            laterChecks.removeFirst()
            givenInSlice += 1
            return .file(first.file, in: first.directory, again: true)
        }
        if let file = files.popLast(), let directory = filesDirectory {
            givenInSlice += 1
            return .file(file, in: directory, again: false)
        }
        guard let directory = directories.popLast() else {
            // Checks are added in wall-time order: the first is the earliest due.
            guard let first = laterChecks.first else { return nil }
            waitAfterSlice = UInt64(max(first.due - wallNow, 0))
            return .wait
        }
        filesDirectory = directory
        givenInSlice += 1
        return .directory(directory)
    }

    package enum Target: Equatable {
        case directory(DirectoryID)
        /// `again` for the second look at a recent difference.
        case file(FileID, in: DirectoryID, again: Bool)
        /// Only later checks are left, none due yet.
        case wait
    }

    /// Looks at a file again once `quietFor` has passed: a difference younger than that may be
    /// a write whose event is still on its way.
    mutating func checkLater(_ file: FileID, in directory: DirectoryID, wallNow: Int64) {
        laterChecks.append((file, directory, Saturating.sum(wallNow, Int64(clamping: settings.quietFor.nanoseconds))))
    }

    /// The files of the directory just given, to be looked at next.
    mutating func queueFiles(_ found: [FileID]) { files = found.reversed() }

    mutating func checked() {
        current?.checked += 1
        checkedTotal += 1
    }

    mutating func corrected(_ reason: Reason) {
        current?.corrections += 1
        corrections[reason, default: 0] += 1
    }

    /// The pass looked at everything.
    mutating func finish(wallNow: Int64) {
        guard var pass = current else { return }
        pass.endedWall = wallNow
        last = pass
        passesFinished += 1
        current = nil
        directories = []
        files = []
        filesDirectory = nil
        laterChecks = []
    }

    /// A slice that used `cpu` of the engine thread ended at `now`: the next waits long enough
    /// to keep the sweep within its budget, and the next pass waits for its period too.
    package mutating func sliceEnded(cpu: Duration, now: UInt64) {
        guard nextDue != nil else { return }
        resizeSlices(after: cpu)
        let budget = min(max(settings.cpuBudget, 0.0001), 1)
        let rest = UInt64((Double(cpu.nanoseconds) / budget).rounded(.up))
        var next = Saturating.sum(now, max(rest, 1))
        if let wait = waitAfterSlice { next = max(next, Saturating.sum(now, wait)) }
        waitAfterSlice = nil
        if current == nil, let last {
            next = max(next, Saturating.sum(last.started, settings.every.nanoseconds))
        }
        nextDue = next
    }

    /// Sizes the next slice by the names per CPU second of the one that ended; a slice cut
    /// short (the pass ended, only later checks were left) or one that read no CPU tells nothing.
    private mutating func resizeSlices(after cpu: Duration) {
        defer { givenInSlice = 0 }
        let spent = Double(cpu.nanoseconds)
        guard givenInSlice >= sliceNames, spent > 0 else { return }
        let fitting = Double(givenInSlice) * Double(settings.sliceCPU.nanoseconds) / spent
        let bounded = min(max(fitting, Double(sliceNames) / 2), Double(sliceNames) * 2)
        sliceNames = min(max(Int(bounded), 1), Self.maxSliceNames)
    }

    /// The tree was replaced by a fresh crawl (overflow recovery): the pass's directories are
    /// gone, so the pass is dropped unfinished; the next slice starts a new one.
    mutating func treeReplaced() {
        current = nil
        directories = []
        files = []
        filesDirectory = nil
        laterChecks = []
    }
}
