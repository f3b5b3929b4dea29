import Foundation
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

/// Random globs and random trees; set QUOTAWATCH_TEST_SEED (decimal or 0x-hex) to add a seed.
@Suite("RuleIndex agrees with matching every glob by itself")
struct RuleIndexTests {
    static let seeds: [UInt64] = {
        var seeds: [UInt64] = [1, 7, 0x5EED, 0xDEAD_BEEF]
        if let text = ProcessInfo.processInfo.environment["QUOTAWATCH_TEST_SEED"] {
            let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            if let parsed { seeds.append(parsed) }
        }
        return seeds
    }()

    static let names: [[UInt8]] =
        ["a", "b", "ab", "Caches", "tmp", "x.tmp", "é"].map { Array($0.utf8) } + [[0xff], [0x61, 0xfe]]
    static let componentPatterns = [
        "a", "b", "ab", "Caches", "tmp", "*", "?", "a*", "*.tmp", "[ab]", "\\xff", "**", "é",
    ]

    @Test("random globs over a random tree", arguments: seeds)
    func randomized(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var globs: [PathGlob] = []
        for _ in 0..<60 {
            let depth = Int.random(in: 0...4, using: &random)
            let text = (0..<depth).map { _ in Self.componentPatterns.randomElement(using: &random)! }.joined(
                separator: "/")
            globs.append(try PathGlob(text.isEmpty ? "." : text))
        }
        let index = RuleIndex(globs)
        // Walk a random tree depth first, placing each directory from its parent's state.
        var stack: [(path: [[UInt8]], state: RuleIndex.State)] = [([], index.root.state)]
        let rootExpected = globs.indices.filter { globs[$0].matches([UInt8]()) }
        #expect(index.root.matched == rootExpected, "seed \(seed): ROOT")
        var visited = 0
        while let (path, state) = stack.popLast(), visited < 3000 {
            visited += 1
            guard path.count < 5 else { continue }
            for _ in 0..<Int.random(in: 2...4, using: &random) {
                let name = Self.names.randomElement(using: &random)!
                let childPath = path + [name]
                let placement = index.child(of: state, named: name)
                let joined = Array(childPath.joined(separator: [UInt8(ascii: "/")]))
                let expected = globs.indices.filter { globs[$0].matches(joined) }
                #expect(
                    placement.matched == expected,
                    "seed \(seed): \(String(decoding: joined, as: UTF8.self)) matched \(placement.matched), expected \(expected)"
                )
                #expect(index.placement(of: joined).matched == expected, "seed \(seed)")
                stack.append((childPath, placement.state))
            }
        }
        #expect(visited > 50, "seed \(seed): the walk visited \(visited) directories")
    }

    @Test("1 000 literal-prefix rules: a directory outside them carries no live glob")
    func literalRulesStayOutOfTheWay() throws {
        let globs = try (0..<1000).map { try PathGlob("Library/Caches/business\($0)/*") }
        let index = RuleIndex(globs)
        let elsewhere = index.placement(of: Array("Documents/x".utf8))
        #expect(elsewhere.state.isDead && elsewhere.matched.isEmpty)
        let caches = index.placement(of: Array("Library/Caches".utf8))
        let business = index.child(of: caches.state, named: Array("business42".utf8))
        #expect(business.matched.isEmpty)
        let member = index.child(of: business.state, named: Array("feed".utf8))
        #expect(member.matched == [42])
        let stranger = index.child(of: caches.state, named: Array("someone-else".utf8))
        #expect(stranger.state.isDead, "no glob is stepped below a name outside the trie")
    }
}
