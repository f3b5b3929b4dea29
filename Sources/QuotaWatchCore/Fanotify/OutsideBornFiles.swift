/// Files created in a directory outside the table and given no other name since: their
/// writes through that name can be dropped without resolving their handles, which is what
/// keeps a program writing new files elsewhere on the file system nearly free for the daemon.
///
/// Why a drop loses nothing (in full: docs/ARCHITECTURE.md, Limits in detail, "Files born
/// outside the tree"): the tree reads a file's size only through a name inside ROOT. A file
/// recorded here was born (its `FAN_CREATE`, reported with its own handle by
/// `FAN_REPORT_TARGET_FID`) in a directory the table did not hold, and no link-count change of
/// it came before: its birth name was its only name. It can gain another only by `link()`,
/// which queues a link-count `FAN_ATTRIB` (by handle only) before the new name's `FAN_CREATE`;
/// it can move only by a rename, which queues `FAN_MOVE_SELF` by handle only; each of those
/// forgets it (and is handed on as before). A write reported before that forget was queued (or
/// merged into an event queued) before the read that returns the forget, so the handing-on that
/// follows it makes the tree read the file after the write. A birth directory that is inside
/// ROOT but not in the table yet (or moved in later) is listed after it enters the table: its
/// events then hit the table and are not dropped, and the listing's stat comes after every
/// write reported before. Only a write reported with the name's directory is dropped; one
/// reported by handle alone (a descriptor from `open_by_handle_at`) forgets the file and is
/// handed on.
///
/// A link's `FAN_CREATE` looks like a birth, so every handle a link-count change named is
/// kept in `linked` until its inode's removal (`FAN_DELETE_SELF`: a handle never names
/// another object after); a creation whose handle is there is no birth. Both sets are
/// bounded: a full `born` drops its older half (those files are resolved again, as before),
/// a full `linked` stops recording births for good, as does a queue overflow (events lost).
package struct OutsideBornFiles: Sendable {
    /// Half of `bornCapacity` in each generation: the older goes when the newer is full.
    private var born: Set<FileHandleKey> = []
    private var bornBefore: Set<FileHandleKey> = []
    private var linked: Set<FileHandleKey> = []
    package let bornCapacity: Int
    package let linkedCapacity: Int
    /// False once a handle could not be kept in `linked`, or events were lost.
    package private(set) var recordsBirths = true

    package init(bornCapacity: Int = 8192, linkedCapacity: Int = 16384) {
        self.bornCapacity = max(2, bornCapacity)
        self.linkedCapacity = max(1, linkedCapacity)
    }

    /// Files recorded, and handles kept as linked, for tests and the documentation's figures.
    package var bornCount: Int { born.count + bornBefore.count }
    package var linkedCount: Int { linked.count }

    package func isBornOutside(_ handle: FileHandleKey) -> Bool {
        born.contains(handle) || bornBefore.contains(handle)
    }

    /// A regular file's event whose directory the table does not hold: true when it may be
    /// dropped. Only a creation, write or close after writing qualifies; anything else (an
    /// attribute change, a removal) forgets the file and is handed on.
    package mutating func dropsEventOutside(_ mask: FanotifyMask, of handle: FileHandleKey) -> Bool {
        let writeOnly: FanotifyMask = [.create, .modify, .closeWrite]
        guard writeOnly.isSuperset(of: mask) else {
            forget(handle)
            return false
        }
        if mask.contains(.create) { return recordBirth(handle) }
        return isBornOutside(handle)
    }

    /// A regular file's event that names no directory: a link-count change (`attrib`), its
    /// own move or removal, or a change through a descriptor with no path. Any of them
    /// forgets it; a link-count change also keeps it from being taken for born again.
    package mutating func noteEventWithoutDirectory(_ mask: FanotifyMask, of handle: FileHandleKey) {
        forget(handle)
        if mask.contains(.deleteSelf) {
            linked.remove(handle)
        } else if mask.contains(.attrib) {
            guard recordsBirths else { return }
            if linked.count >= linkedCapacity {
                stopRecordingBirths()
            } else {
                linked.insert(handle)
            }
        }
    }

    /// A file named in a directory of the table, or by a rename: not born outside any more.
    package mutating func forget(_ handle: FileHandleKey) {
        // Called for every file event in the tree: no hashing while nothing is recorded.
        if !born.isEmpty { born.remove(handle) }
        if !bornBefore.isEmpty { bornBefore.remove(handle) }
    }

    /// The queue overflowed: a link-count change may have been lost with the rest.
    package mutating func eventsLost() { stopRecordingBirths() }

    private mutating func recordBirth(_ handle: FileHandleKey) -> Bool {
        guard recordsBirths, !linked.contains(handle) else {
            forget(handle)
            return false
        }
        if born.count >= bornCapacity / 2 {
            bornBefore = born
            born = []
        }
        born.insert(handle)
        return true
    }

    private mutating func stopRecordingBirths() {
        recordsBirths = false
        born = []
        bornBefore = []
        linked = []
    }
}
