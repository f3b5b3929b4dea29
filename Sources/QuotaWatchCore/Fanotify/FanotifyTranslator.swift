/// Turns fanotify events into the inotify events the live tree applies, given the table that
/// maps a directory's file handle to the watch number its crawl gave it.
///
/// A filesystem mark reports the whole file system, so an event whose directory is not in
/// the table (outside ROOT, or not listed yet, in which case its listing will see the
/// change) is dropped. A write or attribute change of a file whose directory misses, or
/// that names no directory at all (a link count change reaches the inode only), is handed
/// on by the file's own handle instead: the file may be an inode the tree holds under
/// another name, written through a hard link outside ROOT.
public struct FanotifyTranslator: Sendable {
    /// What one batch of fanotify events became.
    public struct Output: Sendable, Equatable {
        public var events: [InotifyEvent] = []
        /// Files changed through a name the table does not hold, in first-seen order, once each.
        public var changedFiles: [FileHandleKey] = []

        public init() {}
    }

    /// Rename cookies, so that the two halves of one rename pair as inotify's would.
    private var nextCookie: UInt32 = 1

    public init() {}

    public mutating func translate(_ events: [FanotifyEvent], watch: (FileHandleKey) -> Int32?) -> Output {
        var output = Output()
        var seenFiles: Set<FileHandleKey> = []
        for event in events {
            translate(event, watch: watch, into: &output, seenFiles: &seenFiles)
        }
        return output
    }

    private mutating func translate(
        _ event: FanotifyEvent, watch: (FileHandleKey) -> Int32?, into output: inout Output,
        seenFiles: inout Set<FileHandleKey>
    ) {
        let mask = event.mask
        if mask.contains(.queueOverflow) {
            output.events.append(InotifyEvent(watch: -1, mask: .queueOverflow))
            return
        }
        let directoryFlag: InotifyMask = mask.contains(.onDirectory) ? .isDirectory : []
        if mask.contains(.rename) {
            translateRename(event, flag: directoryFlag, watch: watch, into: &output)
        }
        guard let named = event.record(.directoryName) ?? event.record(.directory) else {
            noteFileChange(event, into: &output, seenFiles: &seenFiles)
            return
        }
        guard let directoryWatch = watch(named.handle) else {
            noteFileChange(event, into: &output, seenFiles: &seenFiles)
            return
        }
        if named.isSelf {
            var selfMask: InotifyMask = directoryFlag
            if mask.contains(.attrib) { selfMask.insert(.attrib) }
            if mask.contains(.deleteSelf) { selfMask.insert(.deleteSelf) }
            if mask.contains(.moveSelf) { selfMask.insert(.moveSelf) }
            if selfMask != directoryFlag { output.events.append(InotifyEvent(watch: directoryWatch, mask: selfMask)) }
            return
        }
        // The kernel merges entry events on one name, so `create | delete` may be either
        // order. Deletion first, then creation: the stat or listing the creation causes finds
        // what is there now, whichever order it was.
        if mask.contains(.delete) {
            output.events.append(InotifyEvent(watch: directoryWatch, mask: [.delete, directoryFlag], name: named.name))
        }
        if mask.contains(.create) {
            output.events.append(InotifyEvent(watch: directoryWatch, mask: [.create, directoryFlag], name: named.name))
        }
        var changes: InotifyMask = []
        if mask.contains(.modify) { changes.insert(.modify) }
        if mask.contains(.closeWrite) { changes.insert(.closeWrite) }
        if mask.contains(.attrib) { changes.insert(.attrib) }
        if !changes.isEmpty {
            output.events.append(
                InotifyEvent(watch: directoryWatch, mask: changes.union(directoryFlag), name: named.name))
        }
    }

    /// One rename record becomes inotify's pair under a fresh cookie; a half whose
    /// directory is outside the table is left out, which the tree reads as a move in from
    /// outside (or, after its window, out of the tree).
    private mutating func translateRename(
        _ event: FanotifyEvent, flag: InotifyMask, watch: (FileHandleKey) -> Int32?, into output: inout Output
    ) {
        let cookie = nextCookie
        nextCookie = nextCookie == UInt32.max ? 1 : nextCookie + 1
        if let old = event.record(.oldDirectoryName), let from = watch(old.handle) {
            output.events.append(InotifyEvent(watch: from, mask: [.movedFrom, flag], cookie: cookie, name: old.name))
        }
        if let new = event.record(.newDirectoryName), let to = watch(new.handle) {
            output.events.append(InotifyEvent(watch: to, mask: [.movedTo, flag], cookie: cookie, name: new.name))
        }
    }

    private func noteFileChange(_ event: FanotifyEvent, into output: inout Output, seenFiles: inout Set<FileHandleKey>)
    {
        guard !event.mask.contains(.onDirectory), !event.mask.isDisjoint(with: [.modify, .closeWrite, .attrib]),
            let file = event.record(.object), seenFiles.insert(file.handle).inserted
        else { return }
        output.changedFiles.append(file.handle)
    }
}
