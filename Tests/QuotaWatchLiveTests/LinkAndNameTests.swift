import Glibc
import QuotaWatchTestSupport
import Testing

/// Hard links, symlinks and names that are not UTF-8, changed while the daemon runs.
@Suite("live tallies follow links and odd names")
struct LinkAndNameTests {
    private let root = LiveFixture.root
    private let outside = LiveFixture.outside

    @Test("hard links within the root: a write through one name shows wherever another name is")
    func hardLinksWithinRoot() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        for name in ["a", "b", "c/deep"] { try tree.makeDirectories(root.appending(TreePath(name))) }
        try tree.writeFile(root / "a" / "original", byteCount: 64_000)
        try tree.writeFile(root / "a" / "second", byteCount: 9_000)
        try fixture.start()

        try tree.makeHardLink(root / "b" / "link-1", to: root / "a" / "original")
        try tree.makeHardLink(root / "c" / "deep" / "link-2", to: root / "a" / "original")
        try tree.makeHardLink(root / "a" / "same-directory", to: root / "a" / "original")
        try tree.makeHardLink(root / "c" / "second-link", to: root / "a" / "second")
        try fixture.expectLiveMatchesScan("after linking", du: true)

        try tree.appendToFile(root / "b" / "link-1", byteCount: 200_000)
        try tree.truncateFile(root / "c" / "second-link", to: 1_000_000)
        try fixture.expectLiveMatchesScan("after writing through other names", du: true)

        try tree.unlinkEntry(root / "a" / "original")
        try tree.rename(root / "a" / "same-directory", to: root / "c" / "renamed-link")
        try tree.rename(root / "c" / "deep" / "link-2", to: root / "b" / "link-1")
        try tree.appendToFile(root / "c" / "renamed-link", byteCount: 3_000)
        try fixture.expectLiveMatchesScan("after unlinking and renaming names", du: true)
        try fixture.stopCleanly()
    }

    @Test("hard links to files outside the root, written through the outside name")
    func hardLinksToOutside() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.writeFile(outside / "big", byteCount: 500_000)
        try tree.writeFile(outside / "small", byteCount: 3_000)
        try tree.makeDirectories(root / "b")
        try tree.makeDirectories(root / "c" / "deep")
        try fixture.start()

        try tree.makeHardLink(root / "b" / "outside-big", to: outside / "big")
        try tree.makeHardLink(root / "c" / "outside-big", to: outside / "big")
        try tree.makeHardLink(root / "c" / "deep" / "outside-small", to: outside / "small")
        try tree.appendToFile(root / "b" / "outside-big", byteCount: 10_000)
        try fixture.expectLiveMatchesScan("after linking and writing through an inside name", du: true)

        // No event reaches a watched directory, yet du sees the inode change.
        try tree.appendToFile(outside / "big", byteCount: 300_000)
        try tree.truncateFile(outside / "small", to: 0)
        try fixture.expectLiveMatchesScan("after writing through the outside names", du: true)

        try tree.unlinkEntry(root / "b" / "outside-big")
        try tree.unlinkEntry(outside / "big")
        try fixture.expectLiveMatchesScan("after unlinking names", du: true)
        try fixture.stopCleanly()
    }

    @Test("symlinks made, replaced and removed are counted as themselves")
    func symlinks() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "target" / "inner")
        try tree.writeFile(root / "target" / "big", byteCount: 200_000)
        try tree.makeDirectories(root / "links")
        try fixture.start()

        try tree.makeSymlink(root / "links" / "to-file", target: "../target/big")
        try tree.makeSymlink(root / "links" / "to-directory", target: "../target")
        try tree.makeSymlink(root / "links" / "to-root", target: fixture.rootPath)
        try tree.makeSymlink(root / "links" / "dangling", target: "nowhere")
        // Long enough to need a block of its own.
        try tree.makeSymlink(root / "links" / "long", target: String(repeating: "t", count: 3_000))
        try tree.makeSymlink(root / "links" / "next", target: String(repeating: "u", count: 2_000))
        try fixture.expectLiveMatchesScan("after making symlinks", du: true)

        try tree.rename(root / "links" / "next", to: root / "links" / "long")
        try tree.unlinkEntry(root / "links" / "to-file")
        try tree.removeSubtree(root / "target")
        try tree.makeSymlink(root / "target", target: "links")
        try fixture.expectLiveMatchesScan("after replacing and removing", du: true)
        try fixture.stopCleanly()
    }

    @Test("names that are not UTF-8 or hold newlines and backslashes")
    func unusualNames() throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        let names: [[UInt8]] = [
            [0x80], [0xFF, 0xFE], Array("line\nbreak".utf8), Array("back\\slash".utf8), Array("\\x80".utf8),
            [0xED, 0xA0, 0x80], Array("caf\u{e9}".utf8), Array("tab\t".utf8) + [0xC0, 0xAF],
        ]
        try fixture.start()

        for (index, name) in names.enumerated() {
            let directory = root.appending(name)
            try tree.makeDirectory(directory)
            try tree.writeFile(directory.appending(name), byteCount: 1_000 * (index + 1))
            try tree.makeDirectory(directory.appending(names[(index + 1) % names.count]))
            try tree.writeFile(directory.appending(Array("file\n".utf8) + name), byteCount: 5_000)
        }
        try fixture.expectLiveMatchesScan("after making them", du: true)

        for (index, name) in names.enumerated() where index % 2 == 0 {
            let from = root.appending(name)
            let to = root.appending(names[index + 1]).appending(name + [0x0A])
            try tree.rename(from, to: to)
            try tree.appendToFile(to.appending(Array("file\n".utf8) + name), byteCount: 20_000)
            try tree.unlinkEntry(to.appending(name))
        }
        try fixture.expectLiveMatchesScan("after renaming into each other", du: true)

        try tree.removeSubtree(root.appending(names[1]))
        try tree.rename(root.appending(names[3]), to: root.appending([0x0A]))
        try fixture.expectLiveMatchesScan("after removing and renaming again", du: true)
        try fixture.stopCleanly()
    }
}
