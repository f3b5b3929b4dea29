import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchTestSupport
import Testing

/// Random operations on the fake, their events delivered in random batches (often long after
/// later operations), random flushes, timers and overflows; at random points a sync, after
/// which every directory must match du. A failure prints the seed, the step and the actions
/// up to it cut down to a few that still fail, ready to become a directed test.
///
/// Each seed runs in a child process (an exit test), so that a precondition failure in the
/// engine fails that seed, with its last actions, instead of ending the whole test run.
///
/// Replay or explore with `QUOTAWATCH_TEST_SEED=<seed>[,<seed>…]`, which adds seeds (only
/// those with `QUOTAWATCH_TEST_SEED_ONLY=1`), and
/// `QUOTAWATCH_TEST_STEPS=<n>`, which changes the number of operations per seed.
@Suite("LiveTree against du, randomized")
struct LiveTreeRandomizedTests {
    static let seeds: [UInt64] = {
        let fixed: [UInt64] = Array(1...12)
        let environment = ProcessInfo.processInfo.environment
        let extra = (environment["QUOTAWATCH_TEST_SEED"] ?? "").split(separator: ",").compactMap {
            UInt64($0.trimmingCharacters(in: .whitespaces))
        }
        return environment["QUOTAWATCH_TEST_SEED_ONLY"] == "1" && !extra.isEmpty ? extra : fixed + extra
    }()

    static let steps = ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_STEPS"].flatMap { Int($0) } ?? 1500

    @Test(arguments: seeds)
    func randomOperationsAndDeliveriesStayExact(seed: UInt64) async {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("quotawatch-livetree-\(seed)-\(UUID().uuidString)").path
        let (reportPath, progressPath) = (base + ".report", base + ".progress")
        defer {
            try? FileManager.default.removeItem(atPath: reportPath)
            try? FileManager.default.removeItem(atPath: progressPath)
        }
        let steps = Self.steps
        await #expect(processExitsWith: .success, "seed \(seed)") {
            [
                seed = seed as UInt64, steps = steps as Int, reportPath = reportPath as String,
                progressPath = progressPath as String
            ] in
            let report = RandomRun.check(seed: seed, steps: steps, progressPath: progressPath)
            try? FileManager.default.removeItem(atPath: progressPath)
            if let report {
                try? report.write(toFile: reportPath, atomically: true, encoding: .utf8)
                exit(1)
            }
        }
        if let report = try? String(contentsOfFile: reportPath, encoding: .utf8) {
            Issue.record("\(report)")
        } else if let progress = try? String(contentsOfFile: progressPath, encoding: .utf8) {
            Issue.record(
                """
                seed \(seed): the process died (an engine precondition?) after these actions:
                \(progress)
                replay: QUOTAWATCH_TEST_SEED=\(seed) swift test --filter LiveTreeRandomized
                """)
        }
    }
}

extension RandomRun {
    /// One seed's whole run; nil when every sync matched du, else what to report.
    static func check(seed: UInt64, steps: Int, progressPath: String) -> String? {
        var run = RandomRun(seed: seed)
        for step in 0...steps {
            if step < steps {
                run.step(step)
            } else {
                run.perform(.sync)
            }
            let recent = run.actions.suffix(40).map { "  \($0)" }.joined(separator: "\n")
            try? "step \(step), \(run.configuration):\n\(recent)".write(
                toFile: progressPath, atomically: false, encoding: .utf8)
            guard let problems = run.problems else { continue }
            let minimal = minimize(run.actions, configuration: run.configuration)
            let minimalProblems = replay(minimal, configuration: run.configuration)
            return """
                seed \(seed), step \(step): the tree differs from du after a sync
                \(problems.prefix(12).joined(separator: "\n"))
                \(run.configuration); the \(run.actions.count) actions so far, cut down to \(minimal.count) that still fail:
                \(minimal.map { "  \($0)" }.joined(separator: "\n"))
                  h.sync()
                which leaves:
                \(minimalProblems.prefix(12).joined(separator: "\n"))
                replay: QUOTAWATCH_TEST_SEED=\(seed) swift test --filter LiveTreeRandomized
                """
        }
        return run.syncs > 10 ? nil : "seed \(seed) compared only \(run.syncs) times"
    }
}

/// One seed's run, recorded as plain actions so that a failure can be replayed and shrunk.
/// The configuration (descriptor cache, queue size, watch limit) follows from the seed.
struct RandomRun {
    enum Action: CustomStringConvertible {
        case mkdir(FakePath)
        case create(FakePath, size: UInt64)
        case write(FakePath, size: UInt64, delayedAllocation: Bool)
        case settleAllocation(FakePath, allocated: UInt64)
        case link(FakePath, FakePath)
        case unlink(FakePath)
        case removeTree(FakePath, selfEventsFirst: Bool)
        case rename(FakePath, FakePath, selfEventsFirst: Bool)
        case exchange(FakePath, FakePath)
        case chmod(FakePath, readable: Bool)
        case deliver(Int)
        case flush
        case advance(milliseconds: UInt64)
        case resync(droppingQueued: Int)
        case sync

        var description: String {
            switch self {
            case .mkdir(let path): "try h.fs.mkdir(\"\(path)\")"
            case .create(let path, let size): "try h.fs.createFile(\"\(path)\", size: \(size))"
            case .write(let path, let size, let delayed):
                "try h.fs.write(\"\(path)\", size: \(size)\(delayed ? ", allocated: 0" : ""))"
            case .settleAllocation(let path, let allocated):
                "try h.fs.settleAllocation(\"\(path)\", allocated: \(allocated))"
            case .link(let from, let to): "try h.fs.link(\"\(from)\", \"\(to)\")"
            case .unlink(let path): "try h.fs.unlink(\"\(path)\")"
            case .removeTree(let path, let first):
                "\(first ? "" : "h.fs.selfEventsFirst = false; ")try h.fs.removeTree(\"\(path)\")"
            case .rename(let from, let to, let first):
                "\(first ? "" : "h.fs.selfEventsFirst = false; ")try h.fs.rename(\"\(from)\", \"\(to)\")"
            case .exchange(let one, let other): "try h.fs.exchange(\"\(one)\", \"\(other)\")"
            case .chmod(let path, let readable): "try h.fs.chmod(\"\(path)\", readable: \(readable))"
            case .deliver(let count): "h.deliver(\(count))"
            case .flush: "h.flush()"
            case .advance(let milliseconds): "h.advance(milliseconds: \(milliseconds))"
            case .resync(let dropped): "_ = h.fs.takeEvents(\(dropped)); _ = h.live.resync()"
            case .sync: "h.sync()"
            }
        }
    }

    struct Configuration: CustomStringConvertible {
        var handleCapacity: Int
        var queueCapacity: Int
        var watchLimit: Int
        /// Events tied to watches when read, as fanotify's reader does
        /// (``FakeFileSystem/resolvesWatchesWhenRead``), not when they happen.
        var resolvesWatchesWhenRead = false

        var description: String {
            "descriptor cache \(handleCapacity), queue \(queueCapacity == .max ? "unbounded" : "\(queueCapacity)"), "
                + "watch limit \(watchLimit == .max ? "none" : "\(watchLimit)"), "
                + (resolvesWatchesWhenRead
                    ? "watches resolved when read (fanotify)" : "watches resolved at once (inotify)")
        }
    }

    static let names: [[UInt8]] = ["a", "b", "c", "d", "e"].map { Array($0.utf8) } + [[0xff], [0x2e, 0x80]]
    static let outside = FakePath(isOutside: true, components: [])
    static let root = FakePath(components: [])

    let configuration: Configuration
    var random: SeededGenerator
    var h: LiveTreeHarness
    /// Every action that took effect, in order.
    var actions: [Action] = []
    /// Set by the first sync after which the tree differs from du.
    var problems: [String]?
    var syncs = 0
    /// Files written with their allocation left to settle later, while the engine still owes
    /// them a late re-stat: only these may change allocation without an event. Any rename,
    /// removal, chmod or resync forgets them all, since the late re-stat follows a name.
    var delayedWrites: [FakePath: (inode: FakeFileSystem.InodeNumber, at: UInt64)] = [:]

    init(seed: UInt64) {
        self.init(
            configuration: Configuration(
                handleCapacity: [0, 2, 256][Int(seed % 3)], queueCapacity: seed % 4 == 3 ? 40 : .max,
                watchLimit: seed % 5 == 4 ? 8 : .max, resolvesWatchesWhenRead: (seed / 7) % 2 == 1),
            random: SeededGenerator(seed: seed))
    }

    init(configuration: Configuration, random: SeededGenerator = SeededGenerator(seed: 0)) {
        self.configuration = configuration
        self.random = random
        var fs = FakeFileSystem(handleCapacity: configuration.handleCapacity)
        for directory in ["a", "a/b", "c"] as [FakePath] { try? fs.mkdir(directory) }
        try? fs.createFile("a/f", size: 5000)
        try? fs.mkdir("/out/o")
        fs.watchLimit = configuration.watchLimit
        h = LiveTreeHarness(fs)
        h.fs.queueCapacity = configuration.queueCapacity
        h.fs.resolvesWatchesWhenRead = configuration.resolvesWatchesWhenRead
    }

    // MARK: Replaying and shrinking

    /// Runs `actions` on a fresh run, then syncs: what differs from du at the end.
    static func replay(_ actions: [Action], configuration: Configuration) -> [String] {
        var run = RandomRun(configuration: configuration)
        for action in actions { run.perform(action) }
        run.perform(.sync)
        return run.h.mismatches()
    }

    /// Drops chunks of actions, halving the chunk size, while the replay still fails.
    static func minimize(_ actions: [Action], configuration: Configuration) -> [Action] {
        var current = actions
        var chunk = max(1, current.count / 2)
        var replays = 0
        while replays < 4000 {
            var removedAny = false
            var start = 0
            while start < current.count && replays < 4000 {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, current.count))
                replays += 1
                if !replay(candidate, configuration: configuration).isEmpty {
                    current = candidate
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if chunk == 1 && !removedAny { break }
            if !removedAny { chunk = max(1, chunk / 2) }
        }
        return current
    }

    // MARK: One random step

    mutating func step(_ step: Int) {
        if chance(12) {
            for action in randomSequence(step) { perform(action) }
        } else if let operation = randomOperation(step) {
            perform(operation)
        }
        if chance(40) {
            perform(.deliver(chance(30) ? Int.max : Int.random(in: 1...max(1, h.pendingEvents), using: &random)))
        }
        if chance(25) { perform(.flush) }
        if chance(30) { perform(.advance(milliseconds: chance(10) ? 120 : UInt64.random(in: 0...20, using: &random))) }
        if h.live.needsResync && chance(50) {
            // The engine drops the events it had already read before its crawl; later ones
            // stay in the kernel queue and are applied afterwards.
            perform(.resync(droppingQueued: chance(50) ? Int.random(in: 0...h.pendingEvents, using: &random) : 0))
        }
        if chance(4) { perform(.sync) }
    }

    /// Performs an action; one the file system refuses leaves no trace.
    mutating func perform(_ action: Action) {
        do throws(FakeError) {
            switch action {
            case .mkdir(let path): try h.fs.mkdir(path)
            case .create(let path, let size): try h.fs.createFile(path, size: size)
            case .write(let path, let size, let delayed):
                guard isVisible(path) else { return }
                let parentWatched = h.fs.inode(at: path.parent).map { h.fs.watchByInode[$0] != nil } ?? false
                try h.fs.write(path, size: size, allocated: delayed ? 0 : nil)
                if delayed && parentWatched && configuration.queueCapacity == .max {
                    delayedWrites[path] = (h.fs.inode(at: path)!, h.now)
                }
            case .settleAllocation(let path, let allocated):
                guard mayStillSettle(path) else { return }
                try h.fs.settleAllocation(path, allocated: allocated)
            case .link(let from, let to): try h.fs.link(from, to)
            case .unlink(let path): try h.fs.unlink(path)
            case .removeTree(let path, let first):
                h.fs.selfEventsFirst = first
                try h.fs.removeTree(path)
                delayedWrites.removeAll()
            case .rename(let from, let to, let first):
                h.fs.selfEventsFirst = first
                try h.fs.rename(from, to)
                delayedWrites.removeAll()
            case .exchange(let one, let other):
                try h.fs.exchange(one, other)
                delayedWrites.removeAll()
            case .chmod(let path, let readable):
                try h.fs.chmod(path, readable: readable)
                delayedWrites.removeAll()
            case .deliver(let count): h.deliver(count)
            case .flush: h.flush()
            case .advance(let milliseconds): h.advance(milliseconds: milliseconds)
            case .resync(let dropped):
                guard h.live.needsResync else { return }
                _ = h.fs.takeEvents(dropped)
                _ = h.live.resync()
                delayedWrites.removeAll()
            case .sync:
                h.sync()
                syncs += 1
                let found = h.mismatches()
                if !found.isEmpty && problems == nil { problems = found }
            }
        } catch {
            return
        }
        actions.append(action)
    }

    private func mayStillSettle(_ path: FakePath) -> Bool {
        guard let write = delayedWrites[path] else { return false }
        return h.fs.inode(at: path) == write.inode && h.now < write.at + h.live.lateRestatDelay
    }

    /// Whether du reaches `path`: no directory above it in the root is unreadable.
    private func isVisible(_ path: FakePath) -> Bool {
        var ancestor = path.parent
        while !ancestor.components.isEmpty {
            if h.fs.node(at: ancestor)?.isReadable == false { return false }
            ancestor = ancestor.parent
        }
        return true
    }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    private mutating func name() -> [UInt8] { Self.names.randomElement(using: &random)! }

    mutating func size() -> UInt64 { chance(20) ? 0 : UInt64.random(in: 1...200_000, using: &random) }

    /// An operation the current state makes likely to succeed; nil when none was found.
    private mutating func randomOperation(_ step: Int) -> Action? {
        let inside = h.fs.paths(below: Self.root)
        let outsidePaths = h.fs.paths(below: Self.outside)
        let directories = [Self.root] + inside.filter { h.fs.isDirectory($0) }
        let files = inside.filter { !h.fs.isDirectory($0) }
        // Writes through a name du cannot see (below an unreadable directory, or outside the
        // root) reach no watched directory the engine may read, so no engine could follow.
        let visibleFiles = files.filter(isVisible)
        let settling = delayedWrites.keys.filter(mayStillSettle).sorted { $0.description < $1.description }
        let outsideDirectories = [Self.outside] + outsidePaths.filter { h.fs.isDirectory($0) }
        let selfEventsFirst = chance(50)
        var roll = Int.random(in: 0..<100, using: &random)
        if inside.count > 120 && roll < 30 { roll = 48 + roll % 11 }
        switch roll {
        case 0..<10:
            return .mkdir(directories.randomElement(using: &random)!.appending(name()))
        case 10..<24:
            return .create(directories.randomElement(using: &random)!.appending(name()), size: size())
        case 24..<38:
            guard let path = visibleFiles.randomElement(using: &random) else { return nil }
            return .write(path, size: size(), delayedAllocation: chance(15))
        case 38..<41:
            guard let path = settling.randomElement(using: &random) else { return nil }
            return .settleAllocation(path, allocated: UInt64.random(in: 0...50, using: &random) * 4096)
        case 41..<48:
            let candidates = files + (chance(20) ? outsidePaths.filter { !h.fs.isDirectory($0) } : [])
            guard let existing = candidates.randomElement(using: &random) else { return nil }
            let target = (chance(85) ? directories : outsideDirectories).randomElement(using: &random)!
            return .link(existing, target.appending(name()))
        case 48..<55:
            guard let path = files.randomElement(using: &random) else { return nil }
            return .unlink(path)
        case 55..<59:
            guard let path = inside.randomElement(using: &random) else { return nil }
            return .removeTree(path, selfEventsFirst: selfEventsFirst)
        case 59..<74:
            guard let source = inside.randomElement(using: &random) else { return nil }
            let target = directories.randomElement(using: &random)!.appending(name())
            return .rename(source, target, selfEventsFirst: selfEventsFirst)
        case 74..<78:
            guard let source = inside.randomElement(using: &random) else { return nil }
            return .rename(source, Self.outside.appending(Array("o\(step)".utf8)), selfEventsFirst: selfEventsFirst)
        case 78..<83:
            guard let source = outsidePaths.randomElement(using: &random) else { return nil }
            let target = directories.randomElement(using: &random)!.appending(name())
            return .rename(source, target, selfEventsFirst: selfEventsFirst)
        case 83..<88:
            let path = outsideDirectories.randomElement(using: &random)!.appending(name())
            return chance(40) ? .mkdir(path) : .create(path, size: size())
        case 88..<93:
            guard let path = directories.dropFirst().randomElement(using: &random) else { return nil }
            return .chmod(path, readable: !h.fs.node(at: path)!.isReadable)
        case 93..<95:
            guard let path = directories.dropFirst().randomElement(using: &random) else { return nil }
            return .chmod(path, readable: h.fs.node(at: path)!.isReadable)
        default:
            guard let path = outsidePaths.randomElement(using: &random) else { return nil }
            return .removeTree(path, selfEventsFirst: selfEventsFirst)
        }
    }
}
