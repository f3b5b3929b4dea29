import QuotaWatchTestSupport
import Testing

@Suite("scan usage errors")
struct ScanUsageTests {
    @Test("a missing ROOT is an error naming it, exit 64")
    func missingRoot() throws {
        let tree = try TempTree()
        let missing = tree.absolutePath("does-not-exist")
        let result = try CLIRunner.locate().run(["scan", missing])
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.contains(missing), "\(result)")
    }

    @Test("a ROOT that is a regular file is an error naming it, exit 64")
    func rootIsRegularFile() throws {
        let tree = try TempTree()
        try tree.writeFile("plain-file", byteCount: 10)
        let file = tree.absolutePath("plain-file")
        for options in [[], ["--json"]] {
            let result = try CLIRunner.locate().run(["scan", file] + options)
            #expect(result.exitStatus == 64, "\(result)")
            #expect(result.errorText.contains(file), "\(result)")
        }
    }

    @Test("a ROOT that is a symlink to a file is an error, exit 64")
    func rootIsSymlinkToFile() throws {
        let tree = try TempTree()
        try tree.writeFile("plain-file", byteCount: 10)
        try tree.makeSymlink("link", target: "plain-file")
        let result = try CLIRunner.locate().run(["scan", tree.absolutePath("link")])
        #expect(result.exitStatus == 64, "\(result)")
    }

    @Test(
        "bad options exit 64 with usage on stderr",
        arguments: [
            ["scan", "ROOT", "--frobnicate"],
            ["scan"],
            ["scan", "ROOT", "--depth"],
            ["scan", "ROOT", "--depth", "many"],
            ["scan", "ROOT", "ROOT"],
        ]
    )
    func badOptions(_ arguments: [String]) throws {
        let tree = try TempTree()
        let result = try CLIRunner.locate().run(arguments.map { $0 == "ROOT" ? tree.rootPath : $0 })
        #expect(result.exitStatus == 64, "\(result)")
        #expect(result.errorText.lowercased().contains("usage"), "\(result)")
        #expect(result.outputText.isEmpty, "\(result)")
    }

    @Test("the unknown option is named in the error")
    func unknownOptionIsNamed() throws {
        let tree = try TempTree()
        let result = try CLIRunner.locate().run(["scan", tree.rootPath, "--frobnicate"])
        #expect(result.errorText.contains("--frobnicate"), "\(result)")
    }
}
