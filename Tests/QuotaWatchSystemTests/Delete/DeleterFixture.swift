import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// A scratch ROOT with a decoy directory beside it (outside ROOT), and helpers that make
/// files through raw-byte paths.
final class DeleterFixture {
    let scratch: ScratchDirectory
    let rootPath: String
    let decoyPath: String
    let root: FileDescriptor

    convenience init() throws {
        let scratch = try ScratchDirectory()
        try self.init(root: scratch.file("root"), scratch: scratch)
    }

    /// A root made at `rootPath` (on another file system, say); the decoy goes in `scratch`.
    init(root rootPath: String, scratch: ScratchDirectory) throws {
        self.scratch = scratch
        self.rootPath = rootPath
        decoyPath = scratch.file("decoy")
        try check(mkdir(rootPath, 0o755))
        try check(mkdir(decoyPath, 0o755))
        root = try FileDescriptor.currentWorkingDirectory.openDirectory(rootPath.bytes)
    }

    deinit { root.close() }

    func absolute(_ relative: [UInt8]) -> [UInt8] { rootPath.bytes + [UInt8(ascii: "/")] + relative }

    func makeDirectory(_ relative: [UInt8]) throws {
        try check(withPath(absolute(relative)) { mkdir($0, 0o755) })
    }

    @discardableResult
    func makeFile(_ relative: [UInt8], bytes: Int = 5000) throws -> FileIdentity {
        try writeFile(absolute(relative), bytes: bytes)
        return try identity(relative)!
    }

    func writeFile(_ absolute: [UInt8], bytes: Int) throws {
        let descriptor = try withPath(absolute) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        try check(descriptor)
        defer { close(descriptor) }
        let data = [UInt8](repeating: 0x61, count: bytes)
        _ = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    func identity(_ relative: [UInt8]) throws -> FileIdentity? {
        var status = stat()
        let result = try withPath(absolute(relative)) { lstat($0, &status) }
        return result == 0 ? FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) : nil
    }

    func exists(_ relative: [UInt8]) throws -> Bool { try identity(relative) != nil }

    func deleter(
        dryRun: Bool = false, walk: Deleter.WalkMethod = .automatic, checkWriters: Bool = true,
        protecting: @escaping Deleter.Protection = { _ in false }
    ) throws -> Deleter {
        // The /proc scan costs one stat per open descriptor on the machine; tests that are
        // about something else skip it.
        let noWriters: Deleter.WriterCheck = { _ throws(Errno) in .noWriter }
        return try Deleter(
            root: root, dryRun: dryRun, isProtected: protecting, openWriter: checkWriters ? nil : noWriters, walk: walk)
    }
}

func withPath<T>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> T) throws -> T {
    guard !path.contains(0) else { throw Errno.invalidArgument }
    return (path + [0]).withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
}

func check(_ result: CInt) throws {
    if result < 0 { throw Errno(rawValue: errno) }
}

/// Records what the deleter journals, in order; can be told to refuse intents.
final class RecordingJournal: DeletionJournal, Sendable {
    enum Record: Equatable {
        case intent([UInt8])
        case outcome([UInt8], SkipReason?)
    }

    private let state = Mutex<(records: [Record], refuse: Bool)>(([], false))

    var records: [Record] { state.withLock { $0.records } }

    func refuseIntents() { state.withLock { $0.refuse = true } }

    func recordIntent(_ entry: DeletionEntry) throws(DeletionJournalError) {
        let refused = state.withLock { state in
            if state.refuse { return true }
            state.records.append(.intent(entry.path))
            return false
        }
        if refused { throw DeletionJournalError(message: "the test journal refuses") }
    }

    func recordOutcome(_ entry: DeletionEntry, failure: SkipReason?) {
        state.withLock { $0.records.append(.outcome(entry.path, failure)) }
    }
}
