import Dispatch
import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem
import QuotaWatchTestSupport
import Synchronization
import Testing

@Suite("LiveEngine stops cleanly")
struct LiveEngineStopTests {
    /// The inotify descriptors of this process that watch the inode `inode`, read from
    /// /proc/self/fdinfo, where the kernel lists every watch with its inode in hex. A temp
    /// directory's inode is this test's alone, so other tests' descriptors never count.
    private func inotifyDescriptors(watching inode: UInt64) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo")) ?? []
        return entries.filter { entry in
            guard let info = try? SmallFile.read("/proc/self/fdinfo/\(entry)") else { return false }
            let text = String(decoding: info, as: UTF8.self)
            return text.contains("inotify wd:") && text.contains("ino:\(String(inode, radix: 16)) ")
        }
    }

    @Test("run returns after stop() with its threads joined, its inotify descriptor closed and its socket gone")
    func stopJoinsAndCloses() throws {
        let tree = try TempTree(prefix: "qw-engine-stop")
        try tree.makeDirectory("root")
        try tree.makeDirectory("root/sub")
        try tree.writeFile("root/sub/f", byteCount: 5000)
        var status = stat()
        #expect(stat(tree.absolutePath("root"), &status) == 0)
        let rootInode = UInt64(status.st_ino)
        let socket = tree.absoluteBytes("control.sock")

        let engine = LiveEngine(
            options: EngineOptions(
                root: tree.absoluteBytes("root"), rootDisplay: tree.absolutePath("root"), socketPath: socket))
        let exit = Mutex<EngineExit?>(nil)
        // The socket is bound before the first crawl begins, so its first progress report
        // means the engine is listening.
        let crawling = DispatchSemaphore(value: 0)
        let runner = JoinableThread(name: "test-engine") {
            let result = engine.run { _ in crawling.signal() }
            exit.withLock { $0 = result }
        }
        #expect(crawling.wait(timeout: .now() + 60) == .success, "the first crawl never reported")
        // Answered once the first crawl is done and the loop runs.
        let reply = try ControlClient.request(
            socketPath: socket, ControlRequest(.status(.tree(TreeSelection(depth: 1))), sync: true),
            timeout: .seconds(60))
        let report = try StatusWire.report(from: reply)
        #expect(report.directories.map(\.path) == [".", "sub"])
        #expect(inotifyDescriptors(watching: rootInode).count == 1, "the engine watches its root")

        // A silent client: its connection thread waits for a request when the engine stops.
        let silent = try UnixSocket.connect(to: socket)
        defer { silent.close() }
        engine.stop()
        runner.join()

        #expect(exit.withLock { $0 } == .stopped)
        #expect(inotifyDescriptors(watching: rootInode).isEmpty, "the inotify descriptor is still open")
        #expect(try UnixSocket.kind(at: socket) == .missing)
        #expect(try silent.receiveLine(maximumBytes: 1024).bytes.isEmpty, "the silent connection was ended")
    }
}
