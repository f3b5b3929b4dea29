import QuotaWatchPolicy
import Testing

@Suite("Eviction and expiry selection")
struct EvictionSelectionTests {
    private func file(
        _ path: String, inode: UInt64, bytes: UInt64 = 1000, modified: Int64, open: Int64? = nil, links: UInt64 = 1,
        names: [String]? = nil
    ) -> CleanupCandidate {
        CleanupCandidate(
            path: Array(path.utf8), device: 1, inode: inode, allocatedBytes: bytes, apparentBytes: bytes / 2,
            modifiedNanoseconds: modified, lastOpenNanoseconds: open, linkCount: links,
            namesInDirectory: names.map { $0.map { Array($0.utf8) } })
    }

    private func paths(_ picks: [EvictionPick]) -> [[String]] {
        picks.map { $0.names.map { String(decoding: $0, as: UTF8.self) } }
    }

    @Test("oldest mtime first, stopping as soon as the directory is at or under its target")
    func oldestFirstUntilTarget() {
        let candidates = [
            file("c", inode: 3, modified: 30), file("a", inode: 1, modified: 10), file("b", inode: 2, modified: 20),
            file("d", inode: 4, modified: 40),
        ]
        let picks = EvictionSelection.select(candidates, used: 4000, target: 2000)
        #expect(paths(picks) == [["a"], ["b"]])
        #expect(picks.map(\.freesInDirectory) == [1000, 1000])
        #expect(EvictionSelection.select(candidates, used: 2000, target: 2000).isEmpty)
        #expect(paths(EvictionSelection.select(candidates, used: 2001, target: 2000)) == [["a"]])
    }

    @Test("least recently used: a file read recently survives an older unread one")
    func leastRecentlyUsed() {
        let candidates = [
            file("read-recently", inode: 1, modified: 10, open: 100), file("unread", inode: 2, modified: 20),
        ]
        #expect(
            paths(EvictionSelection.select(candidates, used: 2000, target: 1000, order: .leastRecentlyUsed)) == [
                ["unread"]
            ])
        #expect(paths(EvictionSelection.select(candidates, used: 2000, target: 1000)) == [["read-recently"]])
    }

    @Test("a hard-linked inode goes with all its names in the directory and frees its bytes once")
    func hardLinksInside() {
        let candidates = [
            file("x", inode: 7, bytes: 3000, modified: 5, links: 2, names: ["x", "sub/y"]),
            file("sub/y", inode: 7, bytes: 3000, modified: 5, links: 2, names: ["x", "sub/y"]),
            file("z", inode: 8, bytes: 1000, modified: 50),
        ]
        let picks = EvictionSelection.select(candidates, used: 4000, target: 1500)
        #expect(paths(picks) == [["sub/y", "x"]])
        #expect(picks.first?.freesInDirectory == 3000)
        #expect(picks.first?.keepsOtherNames == false)
    }

    @Test("100 000 candidates: every inode picked once, in age order, each with its first name's rule")
    func largeDirectory() {
        // Ages scrambled by a fixed permutation (a multiplier coprime to the count), every
        // tenth inode hard-linked to a second name inside the directory.
        let count = 100_000
        var candidates: [CleanupCandidate] = []
        for index in 0..<count {
            let age = Int64(index * 7_919 % count)
            let linked = index % 10 == 0
            let names = linked ? ["d/\(index)", "e/\(index)"] : ["d/\(index)"]
            for name in names {
                var candidate = file(
                    name, inode: UInt64(index), bytes: 10, modified: age, links: linked ? 2 : 1, names: names)
                candidate.rule = "rule-\(index)-\(name)"
                candidates.append(candidate)
            }
        }
        let picks = EvictionSelection.select(candidates, used: UInt64(count) * 10, target: 0)
        #expect(picks.count == count)
        #expect(Set(picks.map(\.inode)).count == count)
        let ages = picks.map { Int64(Int($0.inode) * 7_919 % count) }
        #expect(ages == (0..<Int64(count)).map { $0 })
        #expect(picks.allSatisfy { $0.rule == "rule-\($0.inode)-d/\($0.inode)" })
        #expect(picks.filter { $0.names.count == 2 }.count == count / 10)
        // Stopping halfway takes the oldest half and nothing else.
        let half = EvictionSelection.select(candidates, used: UInt64(count) * 10, target: UInt64(count) * 5)
        #expect(half.map(\.inode) == Array(picks.prefix(count / 2)).map(\.inode))
    }

    @Test("inodes with a name outside the directory come after every inode wholly inside it")
    func preferWholeInodes() {
        let candidates = [
            file("linked-elsewhere", inode: 1, bytes: 1000, modified: 1, links: 2),
            file("newer", inode: 2, bytes: 1000, modified: 90),
        ]
        let picks = EvictionSelection.select(candidates, used: 2000, target: 1000)
        #expect(paths(picks) == [["newer"]])
        let both = EvictionSelection.select(candidates, used: 3000, target: 1000)
        #expect(paths(both) == [["newer"], ["linked-elsewhere"]])
        #expect(both.last?.keepsOtherNames == true)
        // Its bytes still leave the directory's du total: du counts names inside only.
        #expect(both.last?.freesInDirectory == 1000)
    }

    @Test("apparent size is counted when the quota counts it")
    func apparentSize() {
        let candidates = [file("a", inode: 1, bytes: 1000, modified: 1), file("b", inode: 2, bytes: 1000, modified: 2)]
        let picks = EvictionSelection.select(candidates, used: 1000, target: 400, size: .apparent)
        #expect(paths(picks) == [["a"], ["b"]])
        #expect(picks.map(\.freesInDirectory) == [500, 500])
    }

    @Test("older than an age: strictly before now − age, oldest first")
    func olderThan() {
        let second: Int64 = 1_000_000_000
        let candidates = [
            file("new", inode: 1, modified: 95 * second), file("old", inode: 2, modified: 10 * second),
            file("edge", inode: 3, modified: 40 * second), file("older", inode: 4, modified: 5 * second),
        ]
        let expired = EvictionSelection.olderThan(candidates, age: .seconds(60), nowNanoseconds: 100 * second)
        #expect(expired.map { String(decoding: $0.path, as: UTF8.self) } == ["older", "old"])
    }

    @Test("periodic fallback: daily, hourly, every ten minutes by level")
    func periodic() {
        let schedule = PeriodicCleanupSchedule()
        #expect(schedule.period(at: .normal) == .seconds(86_400))
        #expect(schedule.period(at: .warning) == .seconds(3_600))
        #expect(schedule.period(at: .critical) == .seconds(600))
        let last = Moment.seconds(1000)
        #expect(!schedule.isDue(now: .seconds(1599), lastRun: last, level: .critical))
        #expect(schedule.isDue(now: .seconds(1600), lastRun: last, level: .critical))
        #expect(!schedule.isDue(now: .seconds(1600), lastRun: last, level: .warning))
        #expect(schedule.nextRun(after: last, at: .warning) == .seconds(4600))
    }
}

@Suite("Cleanup protection")
struct CleanupProtectionTests {
    @Test("Documents is protected except the Inbox rule; protect globs cover their subtrees")
    func protection() throws {
        var config = PolicyConfig()
        config.quotas = [
            QuotaRule(glob: try PathGlob("Library/Caches/keep"), limit: 1, thresholds: QuotaThresholds(protect: true)),
            QuotaRule(glob: try PathGlob("Library/Caches/*"), limit: 1),
        ]
        let protection = CleanupProtection(
            config: config, profileApplies: true, extraGlobs: [try PathGlob("Library/Application Support")])
        func check(_ path: String) -> Bool { protection.isProtected(Array(path.utf8)) }
        #expect(check("Documents"))
        #expect(check("Documents/letter.pages"))
        #expect(check("Documents/Inbox"))
        #expect(!check("Documents/Inbox/shared.pdf"))
        #expect(!check("Documents/Inbox/folder/inner"))
        #expect(check("Library/Caches/keep"))
        #expect(check("Library/Caches/keep/a/b"))
        #expect(!check("Library/Caches/feed/a"))
        #expect(check("Library/Application Support/db.sqlite"))
        #expect(!check("tmp/CFNetworkDownload_1.tmp"))

        var noInbox = PolicyConfig()
        noInbox.leftovers.disabled = ["documents-inbox"]
        #expect(CleanupProtection(config: noInbox, profileApplies: true).isProtected(Array("Documents/Inbox/x".utf8)))
    }
}
