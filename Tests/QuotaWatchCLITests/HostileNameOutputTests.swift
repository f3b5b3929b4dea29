import Foundation
import QuotaWatchTestSupport
import Testing

/// Names (and config values, and arguments) that would act on a terminal reach every human
/// output of the one-shot commands escaped the one documented way, never raw.
@Suite("hostile names in human output")
struct HostileNameOutputTests {
    private func expectClean(_ result: ProcessResult, _ what: String) {
        for (stream, bytes) in [("stdout", result.standardOutput), ("stderr", result.standardError)] {
            let found = HostileNames.rawControls(in: bytes)
            #expect(found.isEmpty, "\(what): raw \(found) on \(stream): \(result)")
        }
    }

    @Test("scan's table and clean's pages show each hostile name escaped, one line each")
    func scanAndClean() throws {
        let tree = try TempTree()
        try tree.makeDirectories("Library/Caches")
        try tree.makeDirectory("tmp")
        for (index, name) in HostileNames.corpus.enumerated() {
            try tree.makeDirectory(TreePath(components: [name.bytes]))
            try tree.makeDirectory(TreePath(components: [Array("Library".utf8), Array("Caches".utf8), name.bytes]))
            try tree.writeFile(
                TreePath(components: [Array("Library".utf8), Array("Caches".utf8), name.bytes, name.bytes]),
                byteCount: 1000 + index)
            try tree.writeFile(TreePath(components: [Array("tmp".utf8), name.bytes]), byteCount: 2000 + index)
        }
        let cli = try CLIRunner.locate()
        let root = tree.absolutePath(.root)

        let scan = try cli.run(["scan", root])
        #expect(scan.exitStatus == 0, "\(scan)")
        expectClean(scan, "scan")
        let lines = scan.outputText.split(separator: "\n", omittingEmptySubsequences: false)
        for (_, shown) in HostileNames.corpus {
            #expect(lines.contains { $0.hasSuffix("  " + shown) }, "a row ending in \(shown): \(scan.outputText)")
        }
        // ROOT, the header, ".", Library, tmp and one row per name, then the final newline.
        #expect(lines.count == 5 + HostileNames.corpus.count + 1, "\(scan.outputText)")

        let list = try cli.run(["clean", root, "--list"])
        #expect(list.exitStatus == 0, "\(list)")
        expectClean(list, "clean --list")
        for (_, shown) in HostileNames.corpus {
            #expect(list.outputText.contains("  " + shown + " "), "cache group \(shown): \(list.outputText)")
        }

        let dryRun = try cli.run(["clean", root, "--dry-run", "--category", "tmp", "--category", "caches"])
        #expect(dryRun.exitStatus == 0, "\(dryRun)")
        expectClean(dryRun, "clean --dry-run")
        for (_, shown) in HostileNames.corpus {
            #expect(dryRun.outputText.contains("tmp/" + shown + "\n"), "tmp/\(shown): \(dryRun.outputText)")
        }
    }

    @Test("check-config's table and its errors escape globs, paths and values from the file")
    func checkConfig() throws {
        let tree = try TempTree()
        // YAML's double-quoted escapes put the raw characters into the values.
        try tree.writeFile(
            "good.yaml",
            contents: Array(
                #"""
                quotas:
                  - {path: "Caches/\e(0\ec\a*", limit: 1MB}
                  - {path: "Caches/\x9b2J\u202e", limit: 2MB}
                hooks:
                  - {name: n, command: ["/bin/echo\e(0title\a"], events: [quota_breach]}

                """#.utf8))
        let cli = try CLIRunner.locate()
        let good = try cli.run(["check-config", tree.absolutePath("good.yaml")])
        #expect(good.exitStatus == 0, "\(good)")
        expectClean(good, "check-config table")
        for shown in [#"Caches/\x1b(0\x1bc\x07*"#, #"Caches/\xc2\x9b2J\xe2\x80\xae"#, #"/bin/echo\x1b(0title\x07"#] {
            #expect(good.outputText.contains(shown), "\(shown) in \(good.outputText)")
        }

        try tree.writeFile(
            "bad.yaml", contents: Array(#"quotas:\#n  - {path: "a\ec\nb", limit: "1\e[31mGB"}\#n"#.utf8))
        let bad = try cli.run(["check-config", tree.absolutePath("bad.yaml")])
        #expect(bad.exitStatus == 65, "\(bad)")
        expectClean(bad, "check-config error")
        #expect(bad.errorText.contains(#"1\x1b[31mGB"#), "\(bad)")
        #expect(bad.errorText.split(separator: "\n").count == 1, "one line: \(bad)")

        let missing = try cli.run(["check-config", tree.absolutePath("no\u{1b}[31mfile.yaml")])
        #expect(missing.exitStatus == 66, "\(missing)")
        expectClean(missing, "check-config unreadable")
        #expect(missing.errorText.contains(#"no\x1b[31mfile.yaml"#), "\(missing)")
    }

    @Test("a usage error quoting a bad argument escapes it")
    func usageErrors() throws {
        let cli = try CLIRunner.locate()
        for arguments in [
            ["scan", "--\u{1b}[31mdepth"], ["st\u{1b}]0;x\u{07}atus"], ["scan", "/", "--depth", "1\u{9b}2J"],
            ["run", "/", "--quota", "a\u{202e}=1\nGB"],
        ] {
            let result = try cli.run(arguments)
            #expect(result.exitStatus == 64, "\(result)")
            expectClean(result, "usage error for \(arguments)")
            #expect(result.errorText.hasPrefix("quotawatch: error: "), "\(result)")
        }
    }
}
