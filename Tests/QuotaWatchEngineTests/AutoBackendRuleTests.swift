import Testing

@testable import QuotaWatchEngine

/// `--backend auto`'s rule, without the kernel: inotify when every inode of ROOT's file system
/// could have a watch, else fanotify; each choice says why, naming both figures.
@Suite("auto backend rule")
struct AutoBackendRuleTests {
    @Test("inotify when the file system's inodes fit in the watch limit, the limit itself included")
    func inotifyWhenEverythingFits() {
        for inodes in [0, 1000, 192_530] as [UInt64] {
            guard case .inotify(let reason) = AutoBackendRule.choose(inodesInUse: inodes, watchLimit: 192_530) else {
                Issue.record("\(inodes) inodes, 192530 watches: expected inotify")
                continue
            }
            #expect(reason.contains("\(inodes) inodes") && reason.contains("192530"), "\(reason)")
        }
    }

    @Test("fanotify when they do not, or when the file system does not count them")
    func fanotifyWhenATreeCouldRunOut() {
        guard case .fanotify(let reason) = AutoBackendRule.choose(inodesInUse: 682_103, watchLimit: 192_530) else {
            Issue.record("expected fanotify")
            return
        }
        #expect(reason.contains("682103 inodes") && reason.contains("max_user_watches"), "\(reason)")
        guard case .fanotify(let unknown) = AutoBackendRule.choose(inodesInUse: nil, watchLimit: 8192) else {
            Issue.record("expected fanotify for a file system without an inode count")
            return
        }
        #expect(unknown.contains("does not count its inodes"), "\(unknown)")
    }
}
