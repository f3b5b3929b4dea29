import QuotaWatchSystem
import Testing

@testable import quotawatch

/// How a client reads another daemon's command line from /proc: which words are its roots and
/// which socket serves each, read with the options `run` and `watch` declare.
@Suite("reading a running daemon's command line")
struct RunningDaemonCommandLineTests {
    private func invocation(_ words: [String]) -> RunningDaemons.Invocation? {
        let cmdline: [UInt8] = words.flatMap { Array($0.utf8) + [UInt8(0)] }
        return RunningDaemons.Invocation(cmdline: cmdline, optionsTakingValues: RunningDaemons.optionsTakingValues)
    }

    @Test("the value of every option of run and watch that takes one, given before ROOT, is not the ROOT")
    func valuesBeforeTheRoot() throws {
        let commands = [("run", RunCommand.Options.declarations), ("watch", WatchCommand.Options.declarations)]
        for (command, declarations) in commands {
            for option in declarations where option.valueName != nil {
                let found = invocation(["/usr/bin/quotawatch", command, option.name, "4", "/srv/a"])
                #expect(
                    found?.roots == [Array("/srv/a".utf8)],
                    "\(command) \(option.name) 4 /srv/a: \(String(describing: found))")
            }
        }
        #expect(RunningDaemons.optionsTakingValues.contains(Array("--workers".utf8)))
        #expect(!RunningDaemons.optionsTakingValues.contains(Array("--clean".utf8)))
    }

    @Test("several roots, each with its own --socket in order; none given means each root's default")
    func severalRoots() throws {
        let paired = try #require(
            invocation([
                "quotawatch", "run", "--events", "jsonl", "/srv/a", "--socket", "/run/a.sock", "/srv/b",
                "--socket=/run/b.sock", "--clean",
            ]))
        #expect(paired.roots == [Array("/srv/a".utf8), Array("/srv/b".utf8)])
        #expect(paired.socket(ofRootAt: 0) == Array("/run/a.sock".utf8))
        #expect(paired.socket(ofRootAt: 1) == Array("/run/b.sock".utf8))
        let defaults = try #require(invocation(["quotawatch", "run", "/srv/a", "/srv/b"]))
        #expect(defaults.socket(ofRootAt: 0) == nil && defaults.socket(ofRootAt: 1) == nil)
    }

    @Test("'--' ends the options; an option another version added is taken for a flag; no ROOT is no daemon")
    func edges() {
        #expect(invocation(["quotawatch", "run", "--", "-odd"])?.roots == [Array("-odd".utf8)])
        #expect(invocation(["quotawatch", "run", "--from-the-future", "/srv/a"])?.roots == [Array("/srv/a".utf8)])
        #expect(invocation(["quotawatch", "run", "--config", "/etc/quotawatch.yml"]) == nil)
        #expect(invocation(["quotawatch", "status", "/srv/a"]) == nil)
        #expect(invocation(["/usr/bin/quotawatchx", "run", "/srv/a"]) == nil)
    }
}
