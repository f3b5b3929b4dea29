import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// One pass over `/proc` (see ``OpenWriters``): each process's descriptor table, the tables of
/// its threads that have their own, and its shared writable mappings.
struct ProcScanner {
    let proc: FileDescriptor
    /// Only these files are asked about (nil: every file): a descriptor of any other is not
    /// followed to its flags, and the scan stops once each has a writer.
    let targets: Set<FileIdentity>?
    var census = OpenWriters.Census()

    init(proc: FileDescriptor, targets: Set<FileIdentity>?) {
        self.proc = proc
        self.targets = targets
    }

    var isDone: Bool { targets.map { census.writers.count >= $0.count } ?? false }

    /// Whether a writer of `identity` is still worth looking for.
    private func wanted(_ identity: FileIdentity) -> Bool {
        if let targets, !targets.contains(identity) { return false }
        return census.writers[identity] == nil
    }

    private mutating func note(_ identity: FileIdentity, _ writer: OpenWriters.Writer) {
        if wanted(identity) { census.writers[identity] = writer }
    }

    mutating func scanProcess(_ name: [UInt8], processID: Int32) {
        let descriptors: FileDescriptor
        do {
            descriptors = try proc.openDirectory(name + Array("/fd".utf8))
        } catch .permissionDenied, .notPermitted {
            census.hiddenProcesses += 1
            return
        } catch {
            return  // exited meanwhile
        }
        let numbers = scanTable(descriptors, fdinfo: name + Array("/fdinfo/".utf8), processID: processID, threadID: nil)
        descriptors.close()
        if isDone { return }
        scanThreads(name, processID: processID, processDescriptors: numbers)
        if isDone { return }
        scanMappings(name, processID: processID)
    }

    /// One descriptor table: every descriptor that is a regular file opened for writing.
    /// Returns the descriptor numbers listed; those in `skipping` are not looked at.
    @discardableResult
    private mutating func scanTable(
        _ descriptors: FileDescriptor, fdinfo: [UInt8], processID: Int32, threadID: Int32?,
        skipping: Set<[UInt8]> = []
    ) -> Set<[UInt8]> {
        let names = (try? DirectoryEntries.names(of: descriptors)) ?? []
        for name in names where !skipping.contains(name) {
            guard let number = Int32(decimal: name),
                let target = try? descriptors.statusFollowingSymlink(of: name), target.kind == .regular,
                wanted(FileIdentity(target)),
                let flags = try? OpenWriters.openFlags(in: proc, fdinfo: fdinfo + name)
            else { continue }
            let access = flags & UInt32(O_ACCMODE)
            guard access == UInt32(O_WRONLY) || access == UInt32(O_RDWR) else { continue }
            note(
                FileIdentity(target),
                OpenWriters.Writer(processID: processID, threadID: threadID, access: .descriptor(number)))
            if isDone { break }
        }
        return Set(names)
    }

    /// The threads whose descriptor table is not the process's: a thread that called
    /// `unshare(CLONE_FILES)` holds descriptors `/proc/PID/fd` does not list. `kcmp` tells
    /// which, one system call per thread. Where it cannot (no `CONFIG_KCMP`, or refused for
    /// that process), the thread's table is read for the descriptor numbers the process's own
    /// does not list: a table shared with the process then costs one listing, and a thread's
    /// own descriptors are new numbers (one that reuses a number the process also has open is
    /// the case this misses).
    private mutating func scanThreads(_ process: [UInt8], processID: Int32, processDescriptors: Set<[UInt8]>) {
        let taskPath = process + Array("/task".utf8)
        // The directory's link count is 2 + its threads: most processes have one, and cost
        // one stat here instead of a listing.
        guard let count = try? proc.status(of: taskPath).linkCount, count != 3,
            let tasks = try? proc.openDirectory(taskPath)
        else { return }
        let threads = (try? DirectoryEntries.names(of: tasks)) ?? []
        tasks.close()
        for thread in threads where thread != process {
            guard let threadID = Int32(decimal: thread) else { continue }
            let comparison = system_kcmp_files(processID, threadID)
            if comparison == 0 { continue }
            let threadPath = taskPath + [UInt8(ascii: "/")] + thread
            let descriptors: FileDescriptor
            do {
                descriptors = try proc.openDirectory(threadPath + Array("/fd".utf8))
            } catch .permissionDenied, .notPermitted {
                census.hiddenProcesses += 1
                continue
            } catch {
                continue
            }
            scanTable(
                descriptors, fdinfo: threadPath + Array("/fdinfo/".utf8), processID: processID, threadID: threadID,
                skipping: comparison < 0 ? processDescriptors : [])
            descriptors.close()
            if isDone { return }
        }
    }

    /// `/proc/PID/maps`: a mapping with `w` and `s` in its permissions writes its file
    /// whenever the process stores into it, descriptor closed or not.
    private mutating func scanMappings(_ process: [UInt8], processID: Int32) {
        guard
            let raw = try? unsafe withCString(
                process + Array("/maps".utf8),
                { path throws(Errno) in
                    try valueOrErrno { unsafe system_openat(proc.rawValue, path, O_RDONLY | O_CLOEXEC, 0) }.get()
                })
        else { return }
        let maps = FileDescriptor(rawValue: raw)
        defer { maps.close() }
        // A large process has thousands of lines (a megabyte for a browser): they are read in
        // big chunks, a line cut by a read is carried to the front for the next one.
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var carried = 0
        while carried < buffer.count {
            let count =
                (try? unsafe buffer.withUnsafeMutableBytes { bytes in
                    valueOrErrno { unsafe system_read(raw, bytes.baseAddress! + carried, bytes.count - carried) }
                }.get()) ?? 0
            if count <= 0 { break }
            let filled = carried + count
            let (files, consumed) = unsafe buffer.withUnsafeBufferPointer { bytes in
                unsafe MapsLine.sharedWritableFiles(in: UnsafeBufferPointer(rebasing: bytes[..<filled]))
            }
            for identity in files where wanted(identity) {
                note(identity, OpenWriters.Writer(processID: processID, access: .sharedMapping))
            }
            if isDone { return }
            carried = filled - consumed
            if carried > 0 { buffer.replaceSubrange(0..<carried, with: buffer[consumed..<filled]) }
        }
    }
}
