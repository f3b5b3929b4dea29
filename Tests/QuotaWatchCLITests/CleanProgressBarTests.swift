import QuotaWatchCore
import Testing

@testable import quotawatch

@Suite("clean's progress bar, from the daemon's cleanup_progress events")
struct CleanProgressBarTests {
    @Test("the bar fills with the names answered out of those selected, and says the bytes freed")
    func barText() {
        let half = CleanProgressBar.Progress(removed: 29_000, answered: 30_000, freedBytes: 122_880_000, dryRun: false)
        #expect(
            CleanProgressBar.text(half, total: 60_000, format: .decimal, width: 10)
                == "deleting [#####.....] 30000/60000 files, 122.9 MB freed")
        let dry = CleanProgressBar.Progress(removed: 3, answered: 3, freedBytes: 12_288, dryRun: true)
        #expect(
            CleanProgressBar.text(dry, total: 3, format: .binary, width: 4)
                == "checking [####] 3/3 files, 12.0 KiB would free")
        // More answered than the page counted (a file came since): full, never past it.
        let over = CleanProgressBar.Progress(removed: 7, answered: 7, freedBytes: 0, dryRun: false)
        #expect(
            CleanProgressBar.text(over, total: 5, format: .decimal, width: 5).hasPrefix("deleting [#####] 5/5 files"))
    }

    @Test("only the clean cleaner's progress events are read; other lines are not")
    func parsesOnlySelectionProgress() {
        let line =
            #"{"answered":12,"cleaner":"clean","dry_run":false,"event":"cleanup_progress","freed":4096,"removed":10,"#
            + #""root":"/r","run":"7-1","seconds":1.5,"trigger":"manual"}"#
        #expect(
            CleanProgressBar.Progress(Array(line.utf8))
                == CleanProgressBar.Progress(removed: 10, answered: 12, freedBytes: 4096, dryRun: false))
        let eviction = line.replacingOccurrences(of: #""cleaner":"clean""#, with: #""cleaner":"evict""#)
        #expect(CleanProgressBar.Progress(Array(eviction.utf8)) == nil)
        #expect(CleanProgressBar.Progress(Array(#"{"event":"cleanup","cleaner":"clean"}"#.utf8)) == nil)
        #expect(CleanProgressBar.Progress(Array("not json".utf8)) == nil)
    }
}
