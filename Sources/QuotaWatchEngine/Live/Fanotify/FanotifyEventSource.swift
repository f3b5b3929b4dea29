import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// The reader's source under the fanotify backend: decodes the group's records, translates
/// them through the directory table into the tree's events, and turns the handles of files
/// changed through names outside the tree into inodes.
///
/// Such a file is handed on only when a tree could hold it: it has more than one link, or an
/// event reached it by handle alone. A file with one link whose change named a directory
/// outside the table has that one name outside every tree (or in a directory not listed
/// yet, whose listing reads it after the change, as for ``OutsideBornFiles``), so there is
/// nothing to re-stat. Handing it on cost each root's engine a wake-up and a lookup: with
/// 1 000 roots on one file system, a build elsewhere on it kept the daemon at 20 % of a core.
/// A cached link count is dropped when a link is made (its link-count `FAN_ATTRIB` names no
/// directory), so a file linked into a tree later is resolved again.
final class FanotifyEventSource: KernelEventSource {
    let watches: FanotifyWatches
    /// Used by the reader thread alone; behind a lock only so the source is `Sendable`.
    private let translation = Mutex(Translation())

    struct Translation {
        var translator = FanotifyTranslator()
        /// Inodes of recently resolved handles: a program writing a file outside the tree at
        /// full speed costs one `open_by_handle_at` for the file, not one per write.
        var inodeByHandle: [FileHandleKey: (file: ChangedFile, links: UInt64)] = [:]
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
                let unnamed = output.reachedWithoutName.contains(handle)
                if unnamed { translation.inodeByHandle[handle] = nil }
                if let known = translation.inodeByHandle[handle] {
                    if known.links > 1 { batch.changedFiles.append(known.file) }
                    continue
                }
                // Gone already (ESTALE): its names, if the tree had any, raise their own events.
                guard let resolved = watches.resolve(handle) else { continue }
                // No link left: no tree holds a name of it (each removal had its own event).
                // Every unlink's link-count `FAN_ATTRIB` comes here while the inode lingers.
                guard resolved.links > 0 else { continue }
                let file = ChangedFile(device: resolved.device, inode: resolved.inode)
                if translation.inodeByHandle.count >= Self.cacheCapacity { translation.inodeByHandle = [:] }
                translation.inodeByHandle[handle] = (file, resolved.links)
                if unnamed || resolved.links > 1 { batch.changedFiles.append(file) }
            }
        }
        return KernelRead(bytes: count, bufferCount: buffer.count)
    }

    func close() { watches.close() }
}
