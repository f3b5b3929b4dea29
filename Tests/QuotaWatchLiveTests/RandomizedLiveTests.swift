import QuotaWatchTestSupport
import Testing

/// Thousands of mixed real operations from a seed, with the daemon compared against a fresh
/// scan every few hundred and at the end. To reproduce a failure or explore, set
/// QUOTAWATCH_TEST_SEED (decimal or 0x-hex) to add that seed to the run.
@Suite("live tallies under random operations")
struct RandomizedLiveTests {
    static let seeds = TestSeeds.seeds([1, 0x5EED, 0xDEC0_DE])
    static let operationCount = 1_500
    static let syncEvery = 250

    @Test("random operations, synced every 250", arguments: seeds)
    func randomOperations(seed: UInt64) throws {
        let fixture = try LiveFixture()
        var operations = try RandomOperations(
            tree: fixture.tree, root: LiveFixture.root, outside: LiveFixture.outside, seed: seed)
        for _ in 0..<40 { try operations.step() }
        try fixture.start()

        for done in 1...Self.operationCount {
            do {
                try operations.step()
            } catch {
                Issue.record("\(TestSeeds.describe(seed)): operation \(done) failed: \(error)")
                throw error
            }
            if done % Self.syncEvery == 0 || done == Self.operationCount {
                let context =
                    "\(TestSeeds.describe(seed)) after \(done) operations; \(operations.summary)\nlast operations:\n"
                    + operations.recent.joined(separator: "\n") + "\n"
                try fixture.expectLiveMatchesScan(context)
            }
        }
        try fixture.stopCleanly()
    }
}
