import QuotaWatchCore
import Testing

@Suite("TallyTree against a brute-force model")
struct TallyTreeRandomizedTests {
    @Test(arguments: [1, 2, 3, 42, 2026, 0xdead_beef] as [UInt64])
    func randomOperationsMatchTheModel(seed: UInt64) {
        var session = RandomTreeSession(seed: seed)
        for step in 0..<1500 {
            guard session.step() else { continue }
            guard step % 25 == 0 || step == 1499 else { continue }
            let model = session.model
            for directory in session.liveDirectories() {
                let expected = model.tally(of: directory)
                let actual = session.tree.tally(of: session.treeDirectory[directory]!)
                #expect(actual == expected, "seed \(seed), step \(step), directory \(directory)")
                if actual != expected { return }
            }
            #expect(session.tree.fileCount == session.liveFiles().count, "seed \(seed), step \(step)")
            #expect(session.tree.consistencyViolations() == [], "seed \(seed), step \(step)")
            for file in session.liveFiles().prefix(20) {
                let record = model.files[file]
                #expect(
                    session.tree.entry(named: record.name, in: session.treeDirectory[record.directory]!)
                        == .file(session.treeFile[file]!),
                    "seed \(seed), step \(step): lookup of file \(file)")
            }
        }
    }
}
