import Foundation
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// The policy oracle: random workloads through the whole cleaning turn (``CleaningSimulation``),
/// with ``CleaningOracle`` checking after every run that nothing was deleted that no rule
/// asked for. The writers fill three quota directories, start and abandon downloads (some
/// appended with their mtime set back after each write, some finished with an old or a
/// future mtime), users delete files, the disk level moves, and `clean-now` is asked for;
/// between them, time passes in random steps, from none to past the leftover age.
///
/// `QUOTAWATCH_CLEANING_SEEDS` sets how many seeds run (default 1 000), `QUOTAWATCH_TEST_SEED`
/// (comma-separated) runs those seeds only, `QUOTAWATCH_CLEANING_STEPS` the steps per seed (default 60).
@Suite("cleaning simulation: nothing deleted that no rule asked for")
struct CleaningSimulationTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seeds: [UInt64] = {
        let given = (environment["QUOTAWATCH_TEST_SEED"] ?? "").split(separator: ",").compactMap {
            UInt64($0.trimmingCharacters(in: .whitespaces))
        }
        if !given.isEmpty { return given }
        return Array(1...UInt64(environment["QUOTAWATCH_CLEANING_SEEDS"].flatMap { Int($0) } ?? 1000))
    }()
    static let steps = environment["QUOTAWATCH_CLEANING_STEPS"].flatMap { Int($0) } ?? 60

    @Test("random workloads, every run judged")
    func randomWorkloads() throws {
        var failures: [String] = []
        var judged: [String: Int] = [:]
        for seed in Self.seeds {
            let (failure, counts) = try Self.run(seed: seed, steps: Self.steps)
            judged.merge(counts, uniquingKeysWith: +)
            if let failure { failures.append(failure) }
            if failures.count >= 3 { break }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n\n"))")
        // The workload must reach what the oracle judges, or it proves nothing.
        if Self.seeds.count >= 20 {
            for kind in ["leftovers leftover", "evict quota_breach", "evict manual", "app quota_breach"] {
                #expect(judged[kind, default: 0] > 0, "no deletion of kind '\(kind)' was judged: \(judged)")
            }
        }
        print(
            "cleaning simulation: \(Self.seeds.count) seeds x \(Self.steps) steps, deletions judged: \(judged.sorted { $0.key < $1.key })"
        )
    }

    /// One seed: what the oracle found (nil when nothing) with the seed, the violations and
    /// the last operations; and the deletions it judged.
    static func run(seed: UInt64, steps: Int) throws -> (failure: String?, judged: [String: Int]) {
        var random = SeededGenerator(seed: seed)
        var sim = try CleaningSimulation()
        sim.disk.seed(seed)
        var oracle = CleaningOracle()
        var log: [String] = []
        var downloads: [String] = []
        for step in 0..<steps {
            let operation = try apply(&sim, &oracle, &random, &downloads)
            log.append("\(step): \(operation)")
            sim.advance(milliseconds: Int64.random(in: 0...1_500, using: &random))
            sim.turn(oracle: &oracle)
            if !oracle.violations.isEmpty {
                return (
                    """
                    seed \(seed), step \(step): \(oracle.violations.joined(separator: "; "))
                    last operations: \(log.suffix(12).joined(separator: " | "))
                    replay: QUOTAWATCH_TEST_SEED=\(seed) swift test --filter CleaningSimulationTests
                    """, oracle.judged
                )
            }
        }
        return (nil, oracle.judged)
    }

    /// One random operation, described.
    private static func apply(
        _ sim: inout CleaningSimulation, _ oracle: inout CleaningOracle, _ random: inout SeededGenerator,
        _ downloads: inout [String]
    ) throws -> String {
        let wall = sim.p.h.fs.wallNow
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<40:
            let directory = CleaningSimulation.caches.randomElement(using: &random)!
            let path = FakePath(stringLiteral: "\(directory)/f\(Int.random(in: 0..<10, using: &random))")
            let size = UInt64.random(in: 1...12, using: &random) * 1_000
            if sim.p.h.fs.inode(at: path) == nil {
                try sim.p.h.fs.createFile(path, size: size)
            } else {
                try sim.p.h.fs.write(path, size: size)
            }
            return "write \(path) \(size)"
        case 40..<50:
            let name = "tmp/CFNetworkDownload_\(Int.random(in: 0..<1000, using: &random)).tmp"
            guard sim.p.h.fs.inode(at: FakePath(stringLiteral: name)) == nil else { return "nothing" }
            try sim.p.h.fs.createFile(FakePath(stringLiteral: name), size: 1_000)
            oracle.lastWrite[Array(name.utf8)] = wall
            downloads.append(name)
            return "start \(name)"
        case 50..<70:
            guard let name = downloads.randomElement(using: &random),
                let inode = sim.p.h.fs.inode(at: FakePath(stringLiteral: name))
            else { return "nothing" }
            let path = FakePath(stringLiteral: name)
            try sim.p.h.fs.write(path, size: sim.p.h.fs.nodes[inode]!.apparent + 4_096)
            oracle.lastWrite[Array(name.utf8)] = wall
            // What curl -R, wget -N and rsync -t leave behind each write: an mtime set back.
            if Bool.random(using: &random) { try sim.p.h.fs.setModified(path, to: 0) }
            return "append \(name)"
        case 70..<76:
            guard let name = downloads.randomElement(using: &random),
                sim.p.h.fs.inode(at: FakePath(stringLiteral: name)) != nil
            else { return "nothing" }
            // Finished with the server's mtime: three days back, or (a clock gone wrong) 2100.
            let mtime =
                Bool.random(using: &random) ? wall - 259_200 * CleaningSimulation.second : 4_102_444_800_000_000_000
            try sim.p.h.fs.setModified(FakePath(stringLiteral: name), to: mtime)
            downloads.removeAll { $0 == name }
            return "finish \(name) mtime \(mtime)"
        case 76..<84:
            let files = sim.disk.files.keys.map { String(decoding: $0, as: UTF8.self) }.sorted()
            guard let name = files.randomElement(using: &random) else { return "nothing" }
            try sim.p.h.fs.unlink(FakePath(stringLiteral: name))
            downloads.removeAll { $0 == name }
            return "user removes \(name)"
        case 84..<90:
            let free: UInt64 = Bool.random(using: &random) ? 8_000_000_000 : 50_000_000_000
            sim.p.disk.space = FileSystemSpace(totalBytes: 100_000_000_000, freeBytes: free, availableBytes: free)
            return "free space \(free)"
        case 90..<93:
            sim.coordinator.note(.trigger(.manual("sim")))
            return "clean-now"
        default:
            let milliseconds = Int64.random(in: 1_000...8_000, using: &random)
            sim.advance(milliseconds: milliseconds)
            return "wait \(milliseconds) ms"
        }
    }
}
