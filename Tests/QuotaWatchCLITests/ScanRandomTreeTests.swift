import Foundation
import QuotaWatchTestSupport
import Testing

/// Random trees, rebuilt exactly from their seed. To reproduce or explore,
/// set QUOTAWATCH_TEST_SEED (decimal or 0x-hex) to add that seed to the run.
@Suite("scan --json agrees with du on random trees")
struct ScanRandomTreeTests {
    static let seeds: [UInt64] = {
        var seeds: [UInt64] = [1, 2, 0x5EED, 0xC0FF_EE00_1234]
        if let text = ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_SEED"] {
            let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            if let parsed { seeds.append(parsed) }
        }
        return seeds
    }()

    @Test("random tree", arguments: seeds)
    func randomTree(seed: UInt64) throws {
        let tree = try TempTree()
        try tree.makeDirectories("outside")
        try tree.writeFile("outside/linked-from-inside", byteCount: 45_000)
        try tree.makeDirectories("scan")
        let built = try RandomTree.build(
            in: tree,
            under: "scan",
            seed: seed,
            outsideFiles: ["outside/linked-from-inside"]
        )
        let made = built.summary.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let context =
            "seed 0x\(String(seed, radix: 16)) (rerun with QUOTAWATCH_TEST_SEED=0x\(String(seed, radix: 16)); \(made))"
        try expectScanMatchesOracle(tree, root: "scan", context: context)
    }
}
