import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// The reader's source under the fanotify backend: decodes the group's records, translates
/// them through the directory table into the tree's events, and turns the handles of files
/// changed through names outside the tree into inodes.
final class FanotifyEventSource: KernelEventSource {
    let watches: FanotifyWatches
    /// Used by the reader thread alone; behind a lock only so the source is `Sendable`.
    private let translation = Mutex(Translation())

    struct Translation {
        var translator = FanotifyTranslator()
        /// Inodes of recently resolved handles: a program writing a file outside the tree at
        /// full speed costs one `open_by_handle_at` for the file, not one per write.
        var inodeByHandle: [FileHandleKey: ChangedFile] = [:]
    }

    /// Resolved handles kept; the cache starts afresh beyond this.
    static let cacheCapacity = 512

    init(watches: FanotifyWatches) { self.watches = watches }

    var descriptor: FileDescriptor { watches.group.descriptor }

    func read(buffer: inout [UInt8], into batch: inout KernelEventBatch) throws(Errno) -> KernelRead {
        let count = try watches.group.read(into: &buffer)
        guard count > 0 else { return .nothing }
        let watches = self.watches
        translation.withLock { translation in
            let output = buffer.withUnsafeBytes { raw in
                watches.translate(UnsafeRawBufferPointer(rebasing: raw[0..<count]), with: &translation.translator)
            }
            batch.changes += output.changes
            for handle in output.changedFiles {
                if let known = translation.inodeByHandle[handle] {
                    batch.changedFiles.append(known)
                    continue
                }
                // Gone already (ESTALE): its names, if the tree had any, raise their own events.
                guard let resolved = watches.resolve(handle) else { continue }
                let file = ChangedFile(device: resolved.device, inode: resolved.inode)
                if translation.inodeByHandle.count >= Self.cacheCapacity { translation.inodeByHandle = [:] }
                translation.inodeByHandle[handle] = file
                batch.changedFiles.append(file)
            }
        }
        return KernelRead(bytes: count, bufferCount: buffer.count)
    }

    func close() { watches.close() }
}
