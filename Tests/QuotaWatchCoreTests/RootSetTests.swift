import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchCore

@Suite("The roots one daemon serves")
struct RootSetTests {
    private func overlap(_ roots: [String]) -> RootSet.Overlap? {
        RootSet.firstOverlap(roots.map { Array($0.utf8) })
    }

    @Test("roots apart are served together, whatever their order and shared prefixes")
    func apart() {
        #expect(overlap(["/home/alice", "/home/bob", "/srv/apps/shop"]) == nil)
        #expect(overlap(["/a-b", "/a", "/a.c", "/ab"]) == nil, "a shared prefix is not nesting")
        #expect(overlap(["/home/alice"]) == nil)
        #expect(overlap([]) == nil)
    }

    @Test("a root inside another, or given twice, is refused, naming both")
    func nested() throws {
        let inside = try #require(overlap(["/a-b", "/a/c/d", "/x", "/a"]))
        #expect(inside.outer == Array("/a".utf8) && inside.inner == Array("/a/c/d".utf8))
        #expect(inside.description.contains("/a/c/d is inside the root /a"))
        #expect(overlap(["/home/bob", "/", "/srv"])?.outer == Array("/".utf8))
        let twice = try #require(overlap(["/home/bob/", "/srv", "/home/bob"]))
        #expect(twice.description == "the root /home/bob is given twice")
    }

    @Test("random sets: refused exactly when some root is a prefix of another by components")
    func randomSets() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = QuotaWatchTestSupport.SeededGenerator(seed: seed)
        let names = ["a", "b", "a-b", "a.b", "ab"]
        for _ in 0..<500 {
            let roots = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                "/"
                    + (0..<Int.random(in: 1...3, using: &generator)).map { _ in names.randomElement(using: &generator)!
                    }
                    .joined(separator: "/")
            }
            let components = roots.map { $0.split(separator: "/") }
            let expected = components.indices.contains { i in
                components.indices.contains { j in i != j && components[j].starts(with: components[i]) }
            }
            #expect((overlap(roots) != nil) == expected, "seed \(seed): \(roots)")
        }
    }
}
