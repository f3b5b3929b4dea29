import Foundation
import QuotaWatchTestSupport
import Testing

@Suite("check-config")
struct CheckConfigTests {
    static let exampleConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/quotawatch.example.yaml").path

    @Test("the annotated example passes and its rules are printed in aligned tables")
    func example() throws {
        let result = try CLIRunner.locate().run(["check-config", Self.exampleConfig])
        #expect(result.exitStatus == 0, "\(result)")
        #expect(result.errorText.isEmpty, "\(result)")
        for expected in [
            "QUOTAS", "Library/Caches/*  200MB", "BUDGETS", "LEVELS", "10% or 5GB", "LEFTOVERS (profile: auto",
            "cfnetwork-download", "older than 14d", "disabled: dyld-cache", "HOOKS", "notify-send QuotaWatch",
            "CLEANERS", "order lru, down to 80%", "app-cleanup", "periodic run: normal every 1d",
            "CFBundleShortVersionString of /opt/app/MyApp.app/Info.plist",
        ] {
            #expect(result.outputText.contains(expected), "\(expected) in \(result.outputText)")
        }
    }

    @Test("a rule that can never act is warned of: a protect over a leftover rule or a cleaner, an evict with no quota")
    func rulesThatNeverAct() throws {
        let tree = try TempTree()
        let yaml = """
            profile: ios-sandbox
            quotas:
              - {path: tmp, limit: 1GB, protect: true}
            cleaners:
              - leftovers
              - {kind: expire, name: old-tmp, path: 'tmp/*', age: 7d}
              - {kind: evict, name: media, path: 'Library/Media/*'}
            """
        try tree.writeFile("c.yaml", contents: Array(yaml.utf8))
        let result = try CLIRunner.locate().run(["check-config", tree.absolutePath("c.yaml")])
        #expect(result.exitStatus == 0, "a warning is not an error: \(result)")
        let warnings = result.errorText.split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.contains { $0.contains("leftover rule 'cfnetwork-download'") && $0.contains("protected") })
        #expect(warnings.contains { $0.contains("cleaner 'old-tmp'") && $0.contains("protected path") })
        #expect(warnings.contains { $0.contains("cleaner 'media'") && $0.contains("no quota") })
        #expect(!warnings.contains { $0.contains("documents-inbox") }, "\(warnings)")
    }

    @Test("--json prints one object with every default filled in")
    func json() throws {
        let tree = try TempTree()
        try tree.writeFile("c.yaml", contents: Array("quotas:\n  - {path: tmp, limit: 1GB}\n".utf8))
        let result = try CLIRunner.locate().run(["check-config", tree.absolutePath("c.yaml"), "--json"])
        #expect(result.exitStatus == 0, "\(result)")
        let object = try JSONSerialization.jsonObject(with: Data(result.outputText.utf8)) as? [String: Any]
        let quotas = object?["quotas"] as? [[String: Any]]
        #expect(quotas?.first?["limit"] as? Int == 1_000_000_000)
        #expect(quotas?.first?["warning"] as? Double == 0.8)
        #expect(object?["profile"] as? String == "auto")
        let leftovers = (object?["leftovers"] as? [String: Any])?["rules"] as? [[String: Any]]
        #expect(leftovers?.count == 5, "the profile's built-ins are listed")
    }

    @Test("an invalid file exits 65 with file, line, column and key on stderr")
    func invalid() throws {
        let tree = try TempTree()
        try tree.writeFile("bad.yaml", contents: Array("quotas:\n  - path: x\n    limit: 20XB\n".utf8))
        let path = tree.absolutePath("bad.yaml")
        let result = try CLIRunner.locate().run(["check-config", path])
        #expect(result.exitStatus == 65, "\(result)")
        #expect(result.outputText.isEmpty)
        #expect(result.errorText.contains("\(path):3:12: quotas[0].limit: invalid size '20XB'"), "\(result)")
    }

    @Test("a missing file exits 66 and names it")
    func missing() throws {
        let tree = try TempTree()
        let path = tree.absolutePath("nowhere.yaml")
        let result = try CLIRunner.locate().run(["check-config", path])
        #expect(result.exitStatus == 66, "\(result)")
        #expect(result.errorText.contains(path), "\(result)")
    }

    @Test(
        "usage errors exit 64",
        arguments: [["check-config"], ["check-config", "a", "b"], ["check-config", "a", "--jsn"]])
    func usage(arguments: [String]) throws {
        let result = try CLIRunner.locate().run(arguments)
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains("Usage: quotawatch check-config"), "\(result)")
    }

    @Test("help works both ways")
    func help() throws {
        let viaHelp = try CLIRunner.locate().run(["help", "check-config"])
        let viaFlag = try CLIRunner.locate().run(["check-config", "--help"])
        #expect(viaHelp.exitStatus == 0 && viaHelp.outputText == viaFlag.outputText)
        #expect(viaHelp.outputText.contains("USAGE: quotawatch check-config <file> [--json]"))
        #expect(viaHelp.outputText.contains("65"))
    }
}
