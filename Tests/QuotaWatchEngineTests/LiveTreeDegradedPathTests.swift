import QuotaWatchCore
import QuotaWatchEngine
import Testing

/// The degraded subtrees as `status` and the `degraded` event name them. A root of a daemon
/// serving several can itself be left without a watch (the other roots took the user's limit
/// from the shared inotify instance); it was named "" ("… are polled every 2 s: " and nothing),
/// where every report names the root ".".
@Suite("LiveTree: degraded subtrees named as reports name them")
struct LiveTreeDegradedPathTests {
    @Test("no watch left even for the root: the root is \".\"; one watch: the child by its name")
    func rootIsDot() throws {
        var fs = FakeFileSystem(handleCapacity: 64)
        try fs.mkdir("a")
        try fs.createFile("a/f", size: 5_000)
        fs.watchLimit = 0
        let unwatched = LiveTreeHarness(fs)
        #expect(unwatched.live.degradedPaths == ["."], "the root itself is polled")
        expectExact(unwatched, "a root polled is still exact")

        fs.watchLimit = 1
        let rootOnly = LiveTreeHarness(fs)
        #expect(rootOnly.live.degradedPaths == ["a"], "only a is polled")
    }
}
