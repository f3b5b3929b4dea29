import QuotaWatchPolicy
import Testing

@Suite("PathGlob")
struct PathGlobTests {
    func matches(_ glob: String, _ path: String) throws -> Bool { try PathGlob(glob).matches(Array(path.utf8)) }

    @Test("wildcards stay within one component")
    func withinComponent() throws {
        #expect(try matches("Library/Caches/*", "Library/Caches/com.example.feed"))
        #expect(try matches("Library/Caches/*", "Library/Caches/.hidden"))
        #expect(try !matches("Library/Caches/*", "Library/Caches/a/b"))
        #expect(try !matches("Library/Caches/*", "Library/Caches"))
        #expect(try !matches("a*b", "a/b"))
        #expect(try matches("tmp/CFNetworkDownload_*.tmp", "tmp/CFNetworkDownload_Ab12.tmp"))
        #expect(try !matches("tmp/CFNetworkDownload_*.tmp", "tmp/CFNetworkDownload_Ab12.tmp.x"))
        #expect(try matches("a?c", "abc"))
        #expect(try matches("a?c", "aéc"), "? is one character, not one byte")
        #expect(try !matches("a?c", "ac"))
        #expect(try matches("*a*a*b", "aaaaaaab"))
        #expect(try !matches("*a*a*b", "aaaaaaa"))
    }

    @Test("classes, negation, ranges and escapes")
    func classes() throws {
        #expect(try matches("f[0-9][a-c]", "f7b"))
        #expect(try !matches("f[0-9][a-c]", "f7d"))
        #expect(try matches("f[!0-9]", "fx"))
        #expect(try !matches("f[^0-9]", "f5"))
        #expect(try matches("[]]x", "]x"))
        #expect(try matches("a\\*b", "a*b"))
        #expect(try !matches("a\\*b", "axb"))
        #expect(try matches("back\\\\slash", "back\\slash"))
        #expect(try matches("[é]", "é"))
    }

    @Test("** matches any number of components, zero included")
    func anyDepth() throws {
        #expect(try matches("**/Caches", "Caches"))
        #expect(try matches("**/Caches", "a/b/c/Caches"))
        #expect(try matches("a/**/z", "a/z"))
        #expect(try matches("a/**/z", "a/b/c/z"))
        #expect(try !matches("a/**/z", "a/b/c/y"))
        #expect(try matches("a/**", "a"))
        #expect(try matches("a/**", "a/b/c"))
        #expect(try matches(".", ""))
        #expect(try matches("./tmp", "tmp"))
    }

    @Test("bytes that are not UTF-8 match exactly, written \\xNN")
    func rawBytes() throws {
        let name: [UInt8] = Array("dir/caf".utf8) + [0xe9, 0xff]
        #expect(try PathGlob("dir/caf\\xe9\\xff").matches(name))
        #expect(try PathGlob("dir/caf*").matches(name))
        #expect(try PathGlob("dir/caf??").matches(name), "each stray byte is one character")
        #expect(try !PathGlob("dir/caf?").matches(name))
        #expect(try PathGlob("dir/caf[\\xe9][\\xff]").matches(name))
        #expect(try !PathGlob("dir/caf\\xe9\\xfe").matches(name))
        // A glob given as raw bytes (a command-line word) means the same.
        let fromBytes = try PathGlob(bytes: Array("dir/caf".utf8) + [0xe9, 0xff])
        #expect(fromBytes.matches(name))
        #expect(fromBytes.text == "dir/caf\\xe9\\xff")
    }

    @Test("a directory's state follows from its parent's state and its name")
    func stepwise() throws {
        let glob = try PathGlob("Library/**/Cache?")
        var state = glob.rootState
        for name in ["Library", "x", "y"] { state = glob.step(state, name: Array(name.utf8)) }
        #expect(!glob.isMatch(state) && !state.isDead)
        let matched = glob.step(state, name: Array("Caches".utf8))
        #expect(glob.isMatch(matched))
        #expect(glob.step(glob.rootState, name: Array("tmp".utf8)).isDead)
    }

    @Test(
        "bad globs say what is wrong",
        arguments: [
            ("/abs", "relative to ROOT"), ("a//b", "empty component"), ("a/../b", "'..'"), ("a**", "whole component"),
            ("[abc", "closing ']'"), ("a]", "without a matching '['"), ("x\\q", "unknown escape"), ("x\\x4", "two hex"),
            ("[z-a]", "backwards"), ("trailing\\", "lone backslash"), ("", "write '.' for ROOT"),
        ])
    func badGlobs(glob: String, reason: String) {
        #expect {
            try PathGlob(glob)
        } throws: { error in
            let text = "\(error)"
            return text.contains("'\(glob)'") && text.contains(reason)
        }
    }
}
