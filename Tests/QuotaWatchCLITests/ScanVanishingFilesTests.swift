import Foundation
import Glibc
import QuotaWatchTestSupport
import Synchronization
import Testing

@Suite("scan while files come and go")
struct ScanVanishingFilesTests {
    /// Deletes and at once recreates files in one directory, one after
    /// another, until told to stop, so that a crawl of the directory keeps
    /// finding names whose files are gone.
    private final class Churner: Sendable {
        let directory: String
        let names: [String]
        let stop = Atomic<Bool>(false)
        let replacements = Atomic<Int>(0)
        let finished = DispatchSemaphore(value: 0)

        init(directory: String, names: [String]) {
            self.directory = directory
            self.names = names
        }

        func run() {
            let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer {
                if descriptor >= 0 { close(descriptor) }
                finished.signal()
            }
            guard descriptor >= 0 else { return }
            while !stop.load(ordering: .relaxed) {
                for name in names {
                    if stop.load(ordering: .relaxed) { return }
                    _ = unlinkat(descriptor, name, 0)
                    let file = openat(descriptor, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                    if file >= 0 { close(file) }
                    replacements.add(1, ordering: .relaxed)
                }
            }
        }
    }

    @Test("files that vanish mid-crawl are skipped silently")
    func vanishingFilesAreSkipped() throws {
        let tree = try TempTree()
        try tree.makeDirectories("steady")
        try tree.writeFile("steady/file", byteCount: 10_000)
        try tree.makeDirectories("churn")
        let names = (0..<2000).map { "churning-file-\($0)" }
        for name in names { try tree.makeEmptyFile(TreePath("churn").appending(name)) }

        let churner = Churner(directory: tree.absolutePath("churn"), names: names)
        let thread = Thread { churner.run() }
        thread.start()
        defer {
            churner.stop.store(true, ordering: .relaxed)
            churner.finished.wait()
        }
        let cli = try CLIRunner.locate()
        for attempt in 1...5 {
            let (result, report) = try cli.scanJSON(root: tree.rootPath)
            #expect(result.exitStatus == 0, "attempt \(attempt)\n\(result)")
            #expect(result.errorText.isEmpty, "attempt \(attempt)\n\(result)")
            #expect(report != nil, "attempt \(attempt): stdout is not the JSON object\n\(result)")
            #expect(report?.directoriesByPath["steady"]?.files == 1, "attempt \(attempt)")
        }
        #expect(churner.replacements.load(ordering: .relaxed) > 0, "the churn thread never replaced a file")
    }
}
