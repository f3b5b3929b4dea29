import Foundation
import Glibc
import QuotaWatchCleaning
import QuotaWatchCleaningTestSupport
import QuotaWatchTestSupport
import Testing

@Suite("Deleting from another process: mount points, a full disk, kill -9")
struct CleanupProcessTests {
    @Test(
        "a mount point under ROOT is never crossed",
        .enabled(if: CleanupProbe.mountNamespaceUnavailable == nil, "\(CleanupProbe.mountNamespaceUnavailable ?? "")"))
    func mountPoint() throws {
        let tree = try TempTree()
        try tree.makeDirectories("root/mnt")
        try tree.makeDirectory("state")
        let script = """
            mount -t tmpfs -o size=1m tmpfs "$1/mnt" && echo data > "$1/mnt/f" && \
            exec "$2" delete "$1" "$3" mnt/f mnt
            """
        let result = try Self.runInPrivateMountNamespace(script, tree)
        #expect(result.exitStatus == 0, "\(result.errorText)")
        #expect(result.outputText == "mnt/f skipped other_device\nmnt skipped other_device\n")
    }

    @Test(
        "a full file system under the state directory: the intent cannot be written, the file stays, the error says so",
        .enabled(if: CleanupProbe.mountNamespaceUnavailable == nil, "\(CleanupProbe.mountNamespaceUnavailable ?? "")"))
    func fullDisk() throws {
        let tree = try TempTree()
        try tree.makeDirectory("root")
        try tree.makeDirectory("state")
        try tree.writeFile("root/victim", byteCount: 10_000)
        let script = """
            mount -t tmpfs -o size=64k tmpfs "$3" && mkdir "$3/qw" && touch "$3/qw/audit.jsonl" && \
            (dd if=/dev/zero of="$3/fill" bs=4k 2>/dev/null; true) && exec "$2" delete "$1" "$3/qw" victim
            """
        let result = try Self.runInPrivateMountNamespace(script, tree)
        #expect(result.exitStatus == 0, "\(result.errorText)")
        #expect(result.outputText.hasPrefix("victim not_recorded cannot write the audit record to '"))
        #expect(result.outputText.contains("No space left on device (ENOSPC); nothing was deleted."))
        #expect(result.outputText.contains("set STATE_DIRECTORY"))
        #expect(try tree.exists("root/victim"))
    }

    /// The probe deletes files in a loop and is killed at a random moment, again and again.
    /// After each kill: every file that is gone has an intent, and every outcome marked
    /// removed names a file that is gone. After recovery every intent has an outcome, and
    /// `recovered: present` names a file that is there.
    @Test("kill -9 at random moments: the audit log accounts for every deleted file")
    func killNine() throws {
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["QUOTAWATCH_KILL_RUNS"].flatMap(Int.init) ?? 30
        let seed = environment["QUOTAWATCH_KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let tree = try TempTree()
        try tree.makeDirectories("root/files")
        try tree.makeDirectory("state")
        let probe = try CleanupProbe.path()
        let logPath = tree.absolutePath("state") + "/audit.jsonl"
        var everyName: Set<String> = []

        for run in 0..<runs {
            var names: [String] = []
            for index in 0..<60 {
                let name = "files/r\(run)-\(index)"
                try tree.writeFile(TreePath("root/" + name), byteCount: 512)
                names.append(name)
                everyName.insert(name)
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: probe)
            process.arguments = ["loop", tree.absolutePath("root"), tree.absolutePath("state")]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Wait for the probe to say it has started, then let it delete for a random while.
            _ = output.fileHandleForReading.readData(ofLength: 8)
            usleep(UInt32.random(in: 0...80_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let records = CleanupProbe.records(logPath)
            let intents = Set(
                records.filter { $0["record"] as? String == "intent" }.compactMap { $0["path"] as? String })
            let removed = Set(
                records.filter { $0["record"] as? String == "outcome" && $0["result"] as? String == "removed" }
                    .compactMap { $0["path"] as? String })
            for name in everyName where !(try tree.exists(TreePath("root/" + name))) {
                #expect(intents.contains(name), "seed \(seed), run \(run): \(name) is gone without an intent")
            }
            for name in removed {
                #expect(
                    !(try tree.exists(TreePath("root/" + name))),
                    "seed \(seed), run \(run): \(name) marked removed but present")
            }

            let recovery = try ProcessRunner.run(
                probe, ["recover", tree.absolutePath("root"), tree.absolutePath("state")].map { Array($0.utf8) })
            #expect(recovery.exitStatus == 0, "\(recovery.errorText)")
            for line in recovery.outputText.split(separator: "\n") {
                let parts = line.split(separator: " ")
                let present = try tree.exists(TreePath("root/" + String(parts[0])))
                #expect((parts.last == "present") == present, "seed \(seed), run \(run): recovery said \(line)")
            }
            let after = CleanupProbe.records(logPath)
            let open = Set(after.filter { $0["record"] as? String == "intent" }.map { "\($0["run"]!)#\($0["seq"]!)" })
                .subtracting(
                    after.filter { $0["record"] as? String == "outcome" }.map { "\($0["run"]!)#\($0["seq"]!)" })
            #expect(open.isEmpty, "seed \(seed), run \(run): intents left open after recovery: \(open)")
        }
        let gone = try everyName.filter { !(try tree.exists(TreePath("root/" + $0))) }.count
        print(
            "kill -9: \(runs) runs (seed \(seed), QUOTAWATCH_KILL_RUNS and QUOTAWATCH_KILL_SEED to change), \(gone) of \(everyName.count) files deleted"
        )
        #expect(gone > 0)
    }

    /// Runs `script` under `unshare -m` with $1 the tree's root, $2 the cleanup probe and $3
    /// its state directory.
    private static func runInPrivateMountNamespace(_ script: String, _ tree: TempTree) throws -> ProcessResult {
        let arguments = [
            "-m", "sh", "-c", script, "sh", tree.absolutePath("root"), try CleanupProbe.path(),
            tree.absolutePath("state"),
        ]
        return try ProcessRunner.run("unshare", arguments.map { Array($0.utf8) })
    }
}
