import Foundation
import QuotaWatchCore
import QuotaWatchTestSupport
import Testing

/// Random writes and deletes under several quota directories: at every checkpoint the
/// directories in breach are the ones du says are over their limit.
@Suite("quotas under random changes")
struct QuotaRandomizedTests {
    private let root = LiveFixture.root
    static let limit: UInt64 = 200_000
    /// The quota line a directory must be clearly below to be ok: the warning ratio less the
    /// hysteresis band, with a block of margin.
    static let okLine = UInt64(Double(limit) * (0.8 - 0.02)) - 4096

    @Test(
        "the set of directories in breach equals what du says at each checkpoint",
        arguments: TestSeeds.seeds([0x51_07A, 0xB0_0B5]))
    func breachesFollowDu(seed: UInt64) throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let names = (0..<5).map { "q\($0)" }
        try tree.makeDirectory(root / "quota")
        for name in names { try tree.makeDirectories(root / "quota" / name / "inner") }
        let daemon = try fixture.start(options: ["--quota", "quota/*=\(Self.limit)"])
        var generator = SeededGenerator(seed: seed)
        var files: [TreePath] = []
        var made = 0
        var overLimit = 0
        for checkpoint in 0..<8 {
            for _ in 0..<12 {
                let directory = root / "quota" / names.randomElement(using: &generator)!
                let roll = Int.random(in: 0..<10, using: &generator)
                if files.isEmpty || roll < 5 {
                    made += 1
                    let place = Bool.random(using: &generator) ? directory : directory / "inner"
                    let file = place / "f\(made)"
                    try tree.writeFile(file, byteCount: Int.random(in: 1_000...90_000, using: &generator))
                    files.append(file)
                } else if roll < 8 {
                    try tree.unlinkEntry(files.remove(at: Int.random(in: 0..<files.count, using: &generator)))
                } else {
                    let file = files.randomElement(using: &generator)!
                    try tree.appendToFile(file, byteCount: Int.random(in: 1...40_000, using: &generator))
                }
            }
            let quotas = try daemon.quotas()
            let paths = names.map { "quota/\($0)" }
            let du = try DuOracle.measure(tree, root: root, directories: paths.map { TreePath($0) })
            for path in paths {
                let allocated = UInt64(du.sizes[TreePath(path)]!.allocated)
                let row = try quotas.row(path)
                let context =
                    "checkpoint \(checkpoint), \(path): du \(allocated), row \(row); \(TestSeeds.describe(seed))"
                #expect(row.used == allocated, "\(context)")
                if allocated > Self.limit {
                    overLimit += 1
                    #expect(row.state == .breach, "\(context)")
                } else if allocated < Self.okLine {
                    #expect(row.state == .ok, "\(context)")
                }
            }
            // The events tell the same story as the rows.
            for path in paths {
                let last = daemon.events.last {
                    $0.path == path && ["quota_ok", "quota_warning", "quota_breach"].contains($0.event)
                }
                let state = try quotas.row(path).state
                #expect(
                    (last?.event ?? "quota_ok") == "quota_" + state.rawValue,
                    "checkpoint \(checkpoint), \(path): last event \(last?.text ?? "none"), state \(state); \(TestSeeds.describe(seed))"
                )
            }
        }
        #expect(
            overLimit > 0, "no directory ever went over its limit: the test proves little; \(TestSeeds.describe(seed))")
        try fixture.stopCleanly()
    }
}
