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

    /// `/mnt/x` is a bind mount of `/srv/x`: both paths lead to directory 7, and `/mnt/x/sub`
    /// to 8, a directory below it. Every other path is a directory of its own.
    private func throughMount(_ roots: [String]) -> RootSet.Overlap? {
        let mounted: [String: UInt64] = ["/srv/x": 7, "/mnt/x": 7, "/srv/x/sub": 8, "/mnt/x/sub": 8]
        var others: [String: UInt64] = [:]
        return RootSet.firstOverlap(roots.map { Array($0.utf8) }) { path in
            let text = String(decoding: path, as: UTF8.self)
            let inode = mounted[text] ?? others[text, default: UInt64(100 + others.count)]
            if mounted[text] == nil { others[text] = inode }
            return DirectoryIdentity(device: 1, inode: inode)
        }
    }

    @Test("one directory at two paths (a bind mount), or a root below another through one, is refused")
    func throughABindMount() throws {
        let same = try #require(throughMount(["/srv/x", "/home/a", "/mnt/x"]))
        #expect(Set([same.outer, same.inner]) == [Array("/srv/x".utf8), Array("/mnt/x".utf8)])
        #expect(same.description.contains("are one directory (a bind mount); drop one"), "\(same)")
        let below = try #require(throughMount(["/mnt/x/sub", "/srv/x"]))
        #expect(below.outer == Array("/srv/x".utf8) && below.inner == Array("/mnt/x/sub".utf8))
        #expect(below.mountedAt == Array("/mnt/x".utf8))
        #expect(below.description.contains("/mnt/x/sub is inside the root /srv/x: /mnt/x and /srv/x are one directory"))
        #expect(throughMount(["/srv/x", "/srv/y", "/mnt/z"]) == nil)
        #expect(throughMount(["/srv/x/sub", "/srv/y"]) == nil)
        // Paths that cannot be stat'ed say nothing either way.
        #expect(RootSet.firstOverlap([Array("/a".utf8), Array("/b".utf8)]) { _ in nil } == nil)
    }
}
