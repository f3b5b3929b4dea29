import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import Testing

/// Writers that hold no descriptor in their process's table: a shared writable mapping whose
/// descriptor was closed, and a thread with a descriptor table of its own. A small python3
/// program plays each, and says `ready` once it writes.
@Suite("Deleter: writers /proc/PID/fd does not show")
struct DeleterWriterTests {
    static let python = ProcessRunnerPath.python3

    /// Maps the file shared and writable, closes the descriptor, writes through the mapping
    /// (with mmap(2) itself: Python's mmap module keeps a duplicate of the descriptor).
    static let mappingWriter = """
        import ctypes, os, sys
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        fd = os.open(sys.argv[1], os.O_RDWR)
        address = libc.mmap(None, 4096, 3, 1, fd, 0)  # PROT_READ | PROT_WRITE, MAP_SHARED
        os.close(fd)
        if address in (None, ctypes.c_void_p(-1).value):
            print("mmap failed", ctypes.get_errno(), flush=True)
            sys.exit(1)
        ctypes.memmove(address, b"x", 1)
        print("ready", os.getpid(), flush=True)
        sys.stdin.read()
        """

    /// A thread leaves the process's descriptor table (unshare(CLONE_FILES)) and opens the file
    /// for writing in its own.
    static let threadWriter = """
        import ctypes, os, sys, threading
        libc = ctypes.CDLL(None, use_errno=True)
        def write():
            if libc.unshare(0x400) != 0:
                print("unshare failed", ctypes.get_errno(), flush=True)
                return
            fd = os.open(sys.argv[1], os.O_WRONLY)
            os.write(fd, b"x")
            print("ready", os.getpid(), threading.get_native_id(), flush=True)
            sys.stdin.read()
        thread = threading.Thread(target=write)
        thread.start()
        thread.join()
        """

    @Test(
        "a file written through a shared writable mapping, its descriptor closed, is kept; unmapped, it goes",
        .enabled(if: python != nil, "needs python3 to play the writer"))
    func sharedMapping() throws {
        let fixture = try DeleterFixture()
        let identity = try fixture.makeFile(Array("mapped".utf8), bytes: 8192)
        let writer = try Writer(Self.mappingWriter, fixture.rootPath + "/mapped")
        let fields = try writer.waitUntilReady()
        let processID = try #require(Int32(fields[1]))
        for dryRun in [true, false] {
            let outcome = try fixture.deleter(dryRun: dryRun).remove(
                Array("mapped".utf8), expecting: identity, journal: RecordingJournal())
            #expect(outcome == .skipped(.mappedForWriting(processID: processID)))
        }
        #expect(try fixture.exists(Array("mapped".utf8)))
        writer.finish()
        let outcome = try fixture.deleter().remove(
            Array("mapped".utf8), expecting: identity, journal: RecordingJournal())
        guard case .removed = outcome else {
            Issue.record("not removed once unmapped: \(outcome)")
            return
        }
    }

    @Test(
        "a file open for writing in a thread's own descriptor table is kept, alone and inside a tree",
        .enabled(if: python != nil, "needs python3 to play the writer"))
    func threadWithItsOwnTable() throws {
        let fixture = try DeleterFixture()
        try fixture.makeDirectory(Array("t".utf8))
        let identity = try fixture.makeFile(Array("t/held".utf8), bytes: 8192)
        try fixture.makeFile(Array("t/free".utf8))
        let writer = try Writer(Self.threadWriter, fixture.rootPath + "/t/held")
        let fields = try writer.waitUntilReady()
        let processID = try #require(Int32(fields[1]))
        let threadID = try #require(Int32(fields[2]))
        let reason = SkipReason.openForWriting(processID: processID, threadID: threadID)
        #expect(
            try fixture.deleter().remove(Array("t/held".utf8), expecting: identity, journal: RecordingJournal())
                == .skipped(reason))
        let tree = try fixture.deleter().remove(
            Array("t".utf8), expecting: try fixture.identity(Array("t".utf8))!, journal: RecordingJournal())
        guard case .removed(let removal) = tree else {
            Issue.record("the tree's free file was not removed: \(tree)")
            return
        }
        #expect(removal.entries.map(\.path) == [Array("t/free".utf8)])
        #expect(removal.kept == [KeptEntry(path: Array("t/held".utf8), reason: reason)])
        #expect(try fixture.exists(Array("t/held".utf8)))
        writer.finish()
    }

    /// A python3 writer: started with the file's path, ended by closing its standard input.
    final class Writer {
        let process = Process()
        let input = Pipe()
        let output = Pipe()

        init(_ program: String, _ path: String) throws {
            process.executableURL = URL(fileURLWithPath: try #require(DeleterWriterTests.python))
            process.arguments = ["-c", program, path]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
        }

        deinit { finish() }

        /// The words of its `ready` line, read up to the newline (no timeout: a writer that
        /// never gets ready fails the line check when it exits).
        func waitUntilReady() throws -> [String] {
            var line: [UInt8] = []
            while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
                line.append(byte)
            }
            let words = String(decoding: line, as: UTF8.self).split(separator: " ").map(String.init)
            try #require(words.first == "ready", "the writer said '\(String(decoding: line, as: UTF8.self))'")
            return words
        }

        func finish() {
            guard process.isRunning else { return }
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}

/// Where helper programs are, looked up in PATH once.
enum ProcessRunnerPath {
    static let python3: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where access("\(directory)/python3", X_OK) == 0 {
            return "\(directory)/python3"
        }
        return nil
    }()
}

@Suite("Deleter: a tree deeper than it descends")
struct DeleterDepthTests {
    @Test("a tree nested deeper than maximumDepth keeps its deep part, named too_deep, and everything above it")
    func tooDeep() throws {
        let fixture = try DeleterFixture()
        var path = Array("deep".utf8)
        try fixture.makeDirectory(path)
        for _ in 0..<(Deleter.maximumDepth + 4) {
            path += Array("/d".utf8)
            try fixture.makeDirectory(path)
        }
        try fixture.makeFile(path + Array("/bottom".utf8))
        try fixture.makeFile(Array("deep/top".utf8))
        let outcome = try fixture.deleter(checkWriters: false).remove(
            Array("deep".utf8), expecting: try fixture.identity(Array("deep".utf8))!, journal: RecordingJournal())
        guard case .removed(let removal) = outcome else {
            Issue.record("nothing removed: \(outcome)")
            return
        }
        #expect(removal.entries.map(\.path) == [Array("deep/top".utf8)])
        // The first directory below the bound is kept as too deep, each one above it as not empty.
        let keptTooDeep = removal.kept.filter { if case .tooDeep = $0.reason { true } else { false } }
        #expect(keptTooDeep.count == 1)
        #expect(keptTooDeep.first?.path.filter { $0 == UInt8(ascii: "/") }.count == Deleter.maximumDepth)
        #expect(try fixture.exists(path + Array("/bottom".utf8)))
    }
}
