import QuotaWatchPolicy
import Testing

@Suite("leftover rules and their timers")
struct LeftoverTests {
    @Test("an idle download becomes a leftover at last write + age, and only when nobody writes it")
    func timer() {
        var timer = LeftoverTimer(age: .seconds(3600), lastWrite: .seconds(100))
        #expect(timer.decide(at: .seconds(200)) == .wait(until: .seconds(3700)))
        // Written again: the deadline moves.
        let wasLeftover = timer.written(at: .seconds(1000))
        #expect(!wasLeftover)
        #expect(timer.decide(at: .seconds(3700)) == .wait(until: .seconds(4600)))
        #expect(timer.decide(at: .seconds(4600)) == .checkOpenWriters)
        // Held open by a slow writer: never reported, looked at again one age later.
        #expect(timer.checked(at: .seconds(4600), openForWriting: true) == nil)
        #expect(timer.decide(at: .seconds(5000)) == .wait(until: .seconds(8200)))
        #expect(timer.decide(at: .seconds(8200)) == .checkOpenWriters)
        #expect(timer.checked(at: .seconds(8200), openForWriting: false) == .seconds(7200))
        #expect(timer.phase == .reported)
        // Exactly once.
        #expect(timer.decide(at: .seconds(99_999)) == .idle)
        #expect(timer.checked(at: .seconds(99_999), openForWriting: false) == nil)
        // Written again: no longer a leftover, and a new wait starts.
        let stopsBeingLeftover = timer.written(at: .seconds(10_000))
        #expect(stopsBeingLeftover)
        #expect(timer.decide(at: .seconds(10_000)) == .wait(until: .seconds(13_600)))
    }

    @Test("a check before the deadline changes nothing")
    func earlyCheck() {
        var timer = LeftoverTimer(age: .seconds(60), lastWrite: .seconds(0))
        #expect(timer.checked(at: .seconds(59), openForWriting: false) == nil)
        #expect(timer.phase == .waiting)
    }

    @Test("the ios-sandbox profile's globs find what iOS leaves behind")
    func profile() {
        let rules = IOSSandboxProfile.rules(age: .seconds(3600))
        func rule(for path: String) -> String? { rules.first { $0.matches(Array(path.utf8)) }?.name }
        #expect(rule(for: "tmp/CFNetworkDownload_x9Yz.tmp") == "cfnetwork-download")
        #expect(
            rule(for: "Library/Caches/com.apple.nsurlsessiond/Downloads/com.example.app/CFNetworkDownload_a.tmp")
                == "cfnetwork-download")
        #expect(rule(for: "tmp/sub/CFNetworkDownload_a.tmp") == nil)
        #expect(rule(for: "tmp/com.apple.dyld/App-1234.closure") == "dyld-cache")
        #expect(rule(for: "Documents/Inbox/report.pdf") == "documents-inbox")
        #expect(rule(for: "Library/Preferences/com.example.app.plist.AbC12xY") == "temporary-plist")
        #expect(rule(for: "Library/Preferences/com.example.app.plist") == nil)
        #expect(rule(for: "Library/Caches/WebKit/NetworkCache") == "webkit-network-cache")
        #expect(IOSSandboxProfile.applies(choice: .auto, rootDirectories: ["Documents", "Library", "tmp", "x"]))
        #expect(!IOSSandboxProfile.applies(choice: .auto, rootDirectories: ["Documents", "Library"]))
        #expect(IOSSandboxProfile.applies(choice: .iosSandbox, rootDirectories: []))
        #expect(!IOSSandboxProfile.applies(choice: .none, rootDirectories: ["Documents", "Library", "tmp"]))
    }

    @Test("configured rules override built-ins by name, add to them, and can be turned off")
    func effectiveRules() throws {
        var config = PolicyConfig()
        config.leftovers.age = .seconds(600)
        config.leftovers.rules = [
            LeftoverRule(name: "dyld-cache", paths: [try PathGlob("tmp/com.apple.dyld/*")], kind: .keepNewest(keep: 2)),
            LeftoverRule(
                name: "logs", paths: [try PathGlob("Library/Logs/*")], kind: .olderThan(age: .seconds(86_400))),
        ]
        config.leftovers.disabled = ["temporary-plist"]
        let on = config.effectiveLeftoverRules(profileApplies: true)
        #expect(
            on.map(\.name) == ["cfnetwork-download", "dyld-cache", "documents-inbox", "webkit-network-cache", "logs"])
        #expect(on[0].kind == .idleFile(age: .seconds(600)))
        #expect(on[1].kind == .keepNewest(keep: 2))
        let off = config.effectiveLeftoverRules(profileApplies: false)
        #expect(off.map(\.name) == ["logs"])
    }
}

@Suite("leftover kinds other than idle-file")
struct LeftoverDecisionTests {
    @Test("keep-newest reports all but the newest, ties broken by name")
    func keepNewest() {
        let entries = [("b", 5), ("a", 9), ("c", 9), ("d", 1)].map {
            LeftoverDecisions.Entry(name: Array($0.0.utf8), modifiedNanoseconds: Int64($0.1))
        }
        let stale = LeftoverDecisions.beyondNewest(entries, keep: 1).map { String(decoding: $0.name, as: UTF8.self) }
        #expect(stale == ["c", "b", "d"])
        #expect(LeftoverDecisions.beyondNewest(entries, keep: 10).isEmpty)
    }

    @Test("older-than and directory-over")
    func ageAndSize() {
        let day: Int64 = 86_400_000_000_000
        #expect(
            LeftoverDecisions.isOlder(
                modifiedNanoseconds: 0, changedNanoseconds: 0, than: .seconds(86_400), nowNanoseconds: day + 1))
        #expect(
            !LeftoverDecisions.isOlder(
                modifiedNanoseconds: 0, changedNanoseconds: 0, than: .seconds(86_400), nowNanoseconds: day))
        #expect(
            !LeftoverDecisions.isOlder(
                modifiedNanoseconds: 2 * day, changedNanoseconds: 2 * day, than: .seconds(1), nowNanoseconds: day))
        #expect(
            LeftoverDecisions.isOver(allocated: 101, limit: 100)
                && !LeftoverDecisions.isOver(allocated: 100, limit: 100))
    }
}
