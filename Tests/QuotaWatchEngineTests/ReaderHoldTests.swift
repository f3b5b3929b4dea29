import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@testable import QuotaWatchEngine

/// Files changed outside the tree (fanotify's writes through outside names) wait in the
/// reader for the next batch of changes, or its hold at most: each write elsewhere on the file
/// system no longer costs the engine a turn of its own.
@Suite("KernelEventReader holds files changed outside the tree")
struct ReaderHoldTests {
    @Test("A file changed outside goes with the next changes, before them, not alone")
    func heldUntilTheNextChanges() throws {
        let fixture = try ScriptedSource.Fixture()
        defer { fixture.remove() }
        // A hold no test run reaches: only a change can let the file go.
        let reader = try KernelEventReader(source: fixture.source, holdMilliseconds: 600_000)
        let log = fixture.source.log
        Self.start(reader, loggingTo: log)
        defer { reader.stop() }

        try fixture.temp.makeEmptyFile("outside-7")
        // The reader has drained the queue: it is past the read that found nothing more.
        _ = log.wait(until: .now + .seconds(30)) { $0.contains(.drained) ? true : nil }
        try fixture.temp.makeEmptyFile("inside")
        let entries =
            log.wait(until: .now + .seconds(30)) { entries in
                entries.contains { if case .changes = $0 { true } else { false } } ? entries : nil
            } ?? []

        let posts = entries.filter { if case .read = $0 { false } else { $0 != .drained } }
        #expect(posts == [.files([7]), .changes([Array("inside".utf8)])])
        // Posted after the read of the change: held across the reader's wait, not sent alone.
        let filesPosted = entries.firstIndex(of: .files([7])) ?? 0
        let readsBefore = entries[..<filesPosted].filter { if case .read = $0 { true } else { false } }
        #expect(readsBefore.count == 2)
    }

    @Test("A file changed outside with no change after it goes when its hold ends")
    func goesWhenTheHoldEnds() throws {
        let fixture = try ScriptedSource.Fixture()
        defer { fixture.remove() }
        let reader = try KernelEventReader(source: fixture.source, holdMilliseconds: 5)
        let log = fixture.source.log
        Self.start(reader, loggingTo: log)
        defer { reader.stop() }

        try fixture.temp.makeEmptyFile("outside-3")
        let entries =
            log.wait(until: .now + .seconds(30)) { entries in
                entries.contains(.files([3])) ? entries : nil
            } ?? []
        #expect(entries.contains(.files([3])))
        #expect(!entries.contains { if case .changes = $0 { true } else { false } })
    }

    /// Starts `reader` with every batch it posts appended to `log`.
    private static func start(_ reader: KernelEventReader, loggingTo log: BlockingState<[ScriptedSource.Entry]>) {
        reader.start(
            changes: { changes in log.withLockWakingWaiters { $0.append(.changes(changes.map(\.name))) } },
            files: { files in log.withLockWakingWaiters { $0.append(.files(files.map(\.inode))) } },
            failed: { _ in })
    }
}

/// A reader source on a real inotify watch of a temporary directory: a name `outside-N`
/// becomes a file changed outside the tree with inode N, any other name a change. Logs each
/// read that found events and the first read after them that found none.
private struct ScriptedSource: KernelEventSource {
    enum Entry: Equatable, Sendable {
        case read
        case drained
        case files([UInt64])
        case changes([[UInt8]])
    }

    let inotify: InotifyDescriptor
    let log = BlockingState<[Entry]>([])
    var descriptor: FileDescriptor { inotify.descriptor }

    func read(buffer: inout [UInt8], into batch: inout KernelEventBatch) throws(Errno) -> KernelRead {
        var events: [InotifyEvent] = []
        guard try inotify.readEvents(buffer: &buffer, into: &events) else {
            log.withLockWakingWaiters { entries in
                if entries.last == .read { entries.append(.drained) }
            }
            return .nothing
        }
        let prefix = Array("outside-".utf8)
        for event in events {
            if event.name.starts(with: prefix),
                let inode = UInt64(String(decoding: event.name.dropFirst(8), as: UTF8.self))
            {
                batch.changedFiles.append(ChangedFile(device: 0, inode: inode))
            } else {
                batch.changes.append(FileSystemChange(event))
            }
        }
        log.withLockWakingWaiters { $0.append(.read) }
        // Always "more": the reader reads again at once, and that read logs `drained`.
        return .more
    }

    func close() { inotify.close() }

    struct Fixture {
        let temp: TempTree
        let source: ScriptedSource

        init() throws {
            temp = try TempTree()
            let inotify = try InotifyDescriptor()
            let directory = try FileDescriptor.currentWorkingDirectory.openDirectory(temp.absoluteBytes(.root))
            defer { directory.close() }
            _ = try inotify.addWatch(directory, mask: [.create])
            source = ScriptedSource(inotify: inotify)
        }

        func remove() { temp.remove() }
    }
}
