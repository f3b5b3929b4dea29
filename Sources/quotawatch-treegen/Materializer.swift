import Foundation
import Glibc
import Synchronization

/// What was written.
struct GenerationTotals: Sendable, Equatable {
    /// Directories of the tree, the destination included (as `find -type d` counts them).
    var directories = 0
    var files = 0
    /// The sum of `st_size`.
    var apparentBytes = 0
    /// Bytes actually written; less than `apparentBytes` by the holes of sparse files.
    var writtenBytes = 0

    mutating func add(_ other: GenerationTotals) {
        directories += other.directories
        files += other.files
        apparentBytes += other.apparentBytes
        writtenBytes += other.writtenBytes
    }
}

/// A tree could not be written. Exit status 1.
struct GenerationError: Error, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    init(_ operation: String, _ path: String, errno code: Int32) {
        message = "\(operation) '\(path)': \(String(cString: strerror(code)))"
    }

    var description: String { message }
}

/// Writes a `TreePlan` to disk with plain syscalls: one `mkdir` per directory, then for each
/// file `openat`, `pwrite` from a shared buffer of random bytes, `ftruncate` for sparse tails
/// and `close`. Directories are filled in parallel, one per work item.
struct Materializer {
    /// The destination, without trailing slashes.
    let root: String
    private let pattern = PatternBuffer(byteCount: PatternBuffer.defaultByteCount)

    init(destination: String) {
        var trimmed = Substring(destination)
        while trimmed.count > 1, trimmed.hasSuffix("/") {
            trimmed = trimmed.dropLast()
        }
        root = String(trimmed)
    }

    func materialize(_ plan: TreePlan) throws(GenerationError) -> GenerationTotals {
        try prepareRoot()
        for directory in plan.directories.dropFirst() {
            let path = self.path(of: directory)
            _ = try retryingInterrupts("mkdir", path) { mkdir(path, 0o755) }
        }
        let results = ResultCollector()
        let directories = plan.directories
        DispatchQueue.concurrentPerform(iterations: directories.count) { index in
            guard !results.hasFailed else {
                return
            }
            do throws(GenerationError) {
                results.add(try fill(directories[index]))
            } catch {
                results.fail(error)
            }
        }
        var totals = try results.totals()
        totals.directories = directories.count
        return totals
    }

    private func path(of directory: DirectoryPlan) -> String {
        guard !directory.relativePath.isEmpty else {
            return root
        }
        return root == "/" ? "/" + directory.relativePath : root + "/" + directory.relativePath
    }

    /// The destination must be a new or empty directory: adding to an old tree would make it
    /// depend on more than the seed.
    private func prepareRoot() throws(GenerationError) {
        var status = stat()
        if stat(root, &status) != 0 {
            let code = errno
            guard code == ENOENT else {
                throw GenerationError("stat", root, errno: code)
            }
            _ = try retryingInterrupts("mkdir", root) { mkdir(root, 0o755) }
            return
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw GenerationError("The destination '\(root)' exists and is not a directory")
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: root)
        } catch {
            throw GenerationError("Cannot list the destination '\(root)': \(error.localizedDescription)")
        }
        guard entries.isEmpty else {
            throw GenerationError("The destination '\(root)' is not empty (\(entries.count) entries)")
        }
    }

    private func fill(_ directory: DirectoryPlan) throws(GenerationError) -> GenerationTotals {
        var totals = GenerationTotals()
        guard directory.fileCount > 0 else {
            return totals
        }
        let path = self.path(of: directory)
        let directoryDescriptor = try retryingInterrupts("open", path) {
            open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { _ = close(directoryDescriptor) }
        try directory.forEachFile { (spec: FileSpec) throws(GenerationError) in
            try write(spec, in: directoryDescriptor, directoryPath: path)
            totals.files += 1
            totals.apparentBytes += spec.apparentSize
            totals.writtenBytes += spec.writtenSize
        }
        return totals
    }

    private func write(_ spec: FileSpec, in directoryDescriptor: Int32, directoryPath: String) throws(GenerationError) {
        let filePath = directoryPath + "/" + spec.name
        let descriptor = try retryingInterrupts("create", filePath) {
            spec.name.withCString { openat(directoryDescriptor, $0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        }
        // close is not retried after EINTR: the descriptor is gone either way on Linux.
        defer { _ = close(descriptor) }
        var offset = 0
        while offset < spec.writtenSize {
            let chunk = min(spec.writtenSize - offset, pattern.byteCount)
            let written = pwrite(descriptor, pattern.baseAddress, chunk, off_t(offset))
            if written < 0 {
                let code = errno
                guard code == EINTR else {
                    throw GenerationError("write", filePath, errno: code)
                }
                continue
            }
            offset += written
        }
        if spec.apparentSize > spec.writtenSize {
            _ = try retryingInterrupts("truncate", filePath) { ftruncate(descriptor, off_t(spec.apparentSize)) }
        }
    }

    private func retryingInterrupts(
        _ operation: String,
        _ path: String,
        _ call: () -> Int32
    ) throws(GenerationError) -> Int32 {
        while true {
            let result = call()
            if result >= 0 {
                return result
            }
            let code = errno
            if code != EINTR {
                throw GenerationError(operation, path, errno: code)
            }
        }
    }
}

/// Random bytes that every file is written from, so that data is real and incompressible
/// without drawing it per file. Read-only after `init`, hence safe to share between threads.
/// Unchecked because a raw pointer is never Sendable: the compiler cannot see "read-only".
private final class PatternBuffer: @unchecked Sendable {
    static let defaultByteCount = 1 << 20

    let byteCount: Int
    let baseAddress: UnsafeMutableRawPointer

    init(byteCount: Int) {
        self.byteCount = byteCount
        baseAddress = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 4096)
        var random = SplitMix64(seed: 0x7175_6f74_6177_6174)
        let words = baseAddress.bindMemory(to: UInt64.self, capacity: byteCount / 8)
        for index in 0..<(byteCount / 8) {
            words[index] = random.next()
        }
    }

    deinit {
        baseAddress.deallocate()
    }
}

/// Gathers the totals of parallel work items and the first error.
private final class ResultCollector: Sendable {
    private let state = Mutex<(sum: GenerationTotals, firstError: GenerationError?)>((GenerationTotals(), nil))

    var hasFailed: Bool {
        state.withLock { $0.firstError != nil }
    }

    func add(_ totals: GenerationTotals) {
        state.withLock { $0.sum.add(totals) }
    }

    func fail(_ error: GenerationError) {
        state.withLock { state in
            if state.firstError == nil {
                state.firstError = error
            }
        }
    }

    func totals() throws(GenerationError) -> GenerationTotals {
        let (sum, error) = state.withLock { ($0.sum, $0.firstError) }
        if let error {
            throw error
        }
        return sum
    }
}
