import Foundation
import QuotaWatchTestSupport
import Testing

/// A tmpfs mounted inside the tree, in a private mount namespace of its own
/// (made with unshare), so that nothing outside the test sees the mount and
/// it goes away with the namespace.
@Suite("scan --one-file-system")
struct ScanOneFileSystemTests {
    static let unavailableReason: String? = {
        guard ProcessRunner.findExecutable("unshare") != nil else { return "unshare is not installed" }
        guard let tree = try? TempTree() else { return "cannot make a temp tree" }
        try? tree.makeDirectories("mnt")
        let result = try? ProcessRunner.run(
            "unshare",
            ["--mount", "--propagation", "private", "--", "mount", "-t", "tmpfs", "probe", tree.absolutePath("mnt")]
        )
        guard let result, result.exitStatus == 0 else {
            return "cannot mount a tmpfs in a private mount namespace: \(result?.errorText ?? "")"
        }
        return nil
    }()

    @Test(
        "stays on ROOT's filesystem, as du -x does",
        .enabled(if: unavailableReason == nil, "needs unshare and the right to mount a tmpfs (root)")
    )
    func staysOnRootFilesystem() throws {
        let tree = try TempTree()
        try tree.makeDirectories("scan/a/mnt")
        try tree.makeDirectories("scan/b")
        try tree.writeFile("scan/a/file", byteCount: 30_000)
        try tree.writeFile("scan/b/file", byteCount: 70_000)
        try tree.makeDirectories("out")
        let root = tree.absolutePath("scan")
        let out = tree.absolutePath("out")
        let binary = try CLIRunner.locate().executablePath
        let script = """
            set -u
            root=$1 binary=$2 out=$3
            mount -t tmpfs -o size=32m quotawatch-test "$root/a/mnt" || exit 97
            head -c 2000000 /dev/urandom > "$root/a/mnt/big" || exit 98
            mkdir "$root/a/mnt/sub" && head -c 5000 /dev/urandom > "$root/a/mnt/sub/file" || exit 98
            "$binary" scan "$root" --json --one-file-system > "$out/scan.json" 2> "$out/scan.err"
            echo $? > "$out/scan.status"
            cd "$root" || exit 99
            find . -xdev -printf '%y %P\\0' > "$out/census"
            find . -xdev -type d ! -path ./a/mnt -print0 | xargs -0 -r -n1 du -x -0 -sB1 > "$out/allocated"
            find . -xdev -type d ! -path ./a/mnt -print0 | xargs -0 -r -n1 du -x -0 -sb > "$out/apparent"
            """
        let run = try ProcessRunner.run(
            "unshare",
            ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh", root, binary, out]
        )
        try #require(run.exitStatus == 0, "namespace script failed\n\(run)")

        func read(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(name)")))
        }
        let status = String(decoding: try read("scan.status"), as: UTF8.self)
        let scanError = String(decoding: try read("scan.err"), as: UTF8.self)
        #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "stderr: \(scanError)")
        let report = try #require(try? ScanReport.decode(try read("scan.json")), "stderr: \(scanError)")

        let census = try TreeCensus.parse(findOutput: try read("census"))
        let du = try DuOracle.combining(allocatedOutput: try read("allocated"), apparentOutput: try read("apparent"))
        let expectation = ScanExpectation(rootPath: root, census: census, du: du)
        // Whether the mount point itself is listed is not specified; what lies
        // on the other filesystem must not be counted anywhere.
        let problems = expectation.mismatches(in: report, ignoring: ["a/mnt"], comparingCounts: false)
        let matches = problems.isEmpty
        #expect(matches, "scan differs from du -x/find -xdev:\n\(problems.joined(separator: "\n"))")
        let below = report.directories.filter { $0.path.hasPrefix("a/mnt/") }
        #expect(below.isEmpty, "directories on the other filesystem are listed: \(below.map(\.path))")
        // Only b's counts are unambiguous: a and the root hold the mount point.
        let b = report.directoriesByPath["b"]
        #expect(
            b?.files == census.counts["b"]?.files && b?.dirs == census.counts["b"]?.dirs,
            "\(String(describing: b))"
        )
    }
}
