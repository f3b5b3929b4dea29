import Glibc
import QuotaWatchTestSupport
import Testing

/// The two sequences every past race came from, thousands of times each on both backends,
/// with a sync and a comparison against a fresh scan every few hundred and du at the end:
/// a `mkdir` whose children are made before the daemon lists it (inotify adds its watch only
/// after the directory exists; fanotify's mark is there before), and a directory renamed over
/// an empty one made just before.
@Suite("races repeated thousands of times: mkdir then children, rename over an empty directory")
struct RaceRepetitionTests {
    private let root = LiveFixture.root
    static let rounds = TestSeeds.steps(standard: 2_000)
    static let checkEvery = 500

    @Test("on inotify") func onInotify() throws { try repeatRaces(backend: "inotify") }

    @Test("on fanotify", .enabled(if: FanotifyBackendTests.notRoot == nil, "\(FanotifyBackendTests.notRoot ?? "")"))
    func onFanotify() throws { try repeatRaces(backend: "fanotify") }

    private func repeatRaces(backend: String) throws {
        let fixture = try LiveFixture()
        let tree = fixture.tree
        try tree.makeDirectories(root / "made")
        try tree.makeDirectories(root / "renamed")
        try fixture.start(options: ["--backend", backend])
        for round in 1...Self.rounds {
            // Children at once, two levels down, before the daemon can have listed the parent.
            let top = root / "made" / "m\(round)"
            try tree.makeDirectories(top / "child" / "grandchild")
            try tree.writeFile(top / "child" / "file", byteCount: 1_000 + round)
            try tree.writeFile(top / "child" / "grandchild" / "deep", byteCount: 3_000)
            // A full directory renamed over an empty one made just before.
            let target = root / "renamed" / "r\(round)"
            try tree.makeDirectory(target)
            let source = root / "made" / "m\(round)" / "child"
            try tree.rename(source, to: target)
            try tree.writeFile(target / "after", byteCount: 500)
            if round % Self.checkEvery == 0 || round == Self.rounds {
                try fixture.expectLiveMatchesScan("\(backend), after \(round) rounds", du: round == Self.rounds)
            }
        }
        try fixture.stopCleanly()
    }
}
