/// Turns fanotify events into the changes the live tree applies, given the table that maps a
/// directory's file handle to the key its crawl gave it.
///
/// A filesystem mark reports the whole file system, so an event whose directory is not in
/// the table (outside ROOT, or not listed yet, in which case its listing will see the
/// change) is dropped. A write or attribute change of a file whose directory misses, or
/// that names no directory at all (a link count change reaches the inode only), is handed
/// on by the file's own handle instead: the file may be an inode the tree holds under
/// another name, written through a hard link outside ROOT. Except a file born outside the
/// table and given no other name since (``OutsideBornFiles``, where the argument is): its
/// writes are dropped there, unresolved.
package struct FanotifyTranslator: Sendable {
    /// What one batch of fanotify events became.
    package struct Output: Sendable, Equatable {
        package var changes: [FileSystemChange] = []
        /// Directories whose own removal was reported: their keys are forgotten (the handle of
        /// a removed object never comes back).
        package var removedDirectories: [FileHandleKey] = []
        /// Files changed through a name the table does not hold, in first-seen order, once each.
        package var changedFiles: [FileHandleKey] = []
        /// `changedFiles` as a set, so that each is handed on once per batch.
        var seenFiles: Set<FileHandleKey> = []
        /// Files of `changedFiles` that an event of the batch reached by handle alone, naming
        /// no directory (a link count change, a move, a write through `open_by_handle_at`): the
        /// others were named in a directory outside the table, so one of them with a single link
        /// has no name the tree could hold (``FanotifyEventSource`` drops it once resolved).
        package var reachedWithoutName: Set<FileHandleKey> = []

        package init() {}

        package static func == (left: Self, right: Self) -> Bool {
            left.changes == right.changes && left.removedDirectories == right.removedDirectories
                && left.changedFiles == right.changedFiles
        }
    }

    /// Rename cookies, so that the two halves of one rename pair as inotify's would.
    private var nextCookie: UInt32 = 1
    /// Files whose writes outside the table need not be resolved.
    package private(set) var outsideBorn: OutsideBornFiles

    package init(outsideBorn: OutsideBornFiles = OutsideBornFiles()) {
        self.outsideBorn = outsideBorn
    }

    package mutating func translate(_ events: [FanotifyEvent], watch: (FileHandleKey) -> Int32?) -> Output {
        var output = Output()
        for event in events {
            translate(event, watch: watch, into: &output)
        }
        return output
    }

    /// An event that is neither an overflow nor a rename, whose directory (`DFID_NAME`, else
    /// `DFID`) the table does not hold: what ``translate(_:watch:into:)`` does with it, from
    /// its mask and its file's handle alone, so that the reader need not decode it. Most
    /// events of a filesystem mark come here: a busy program elsewhere on the file system.
    package mutating func translateOutside(_ mask: FanotifyMask, object: FileHandleKey?, into output: inout Output) {
        if !mask.contains(.onDirectory), let object, outsideBorn.dropsEventOutside(mask, of: object) { return }
        noteFileChange(mask, object: object, into: &output)
    }

    /// One event, onto `output`; events must come in the order they were read.
    package mutating func translate(
        _ event: FanotifyEvent, watch: (FileHandleKey) -> Int32?, into output: inout Output
    ) {
        let mask = event.mask
        if mask.contains(.queueOverflow) {
            outsideBorn.eventsLost()
            output.changes.append(.overflow)
            return
        }
        let isDirectory = mask.contains(.onDirectory)
        if mask.contains(.rename) {
            translateRename(event, isDirectory: isDirectory, watch: watch, into: &output)
        }
        // A regular file's own handle: `FAN_REPORT_FID` gives it for events on the file,
        // `FAN_REPORT_TARGET_FID` for entry events too (creation, removal, rename).
        let file = isDirectory ? nil : event.record(.object)?.handle
        guard let named = event.record(.directoryName) ?? event.record(.directory) else {
            if let file {
                if mask.contains(.rename) {
                    outsideBorn.forget(file)
                } else {
                    outsideBorn.noteEventWithoutDirectory(mask, of: file)
                }
            }
            if let object = event.record(.object)?.handle, !isDirectory { output.reachedWithoutName.insert(object) }
            noteFileChange(mask, object: event.record(.object)?.handle, into: &output)
            return
        }
        guard let directoryWatch = watch(named.handle) else {
            if let file, outsideBorn.dropsEventOutside(mask, of: file) { return }
            noteFileChange(mask, object: event.record(.object)?.handle, into: &output)
            return
        }
        if let file { outsideBorn.forget(file) }
        if named.isSelf {
            var kind: ChangeKind = []
            if mask.contains(.attrib) { kind.insert(.attributes) }
            if mask.contains(.deleteSelf) { kind.insert(.selfRemoved) }
            if mask.contains(.moveSelf) { kind.insert(.selfMoved) }
            guard !kind.isEmpty else { return }
            output.changes.append(FileSystemChange(watch: directoryWatch, kind: kind, isDirectory: isDirectory))
            if mask.contains(.deleteSelf) {
                // As inotify's IN_IGNORED follows IN_DELETE_SELF: no change comes for it again.
                output.changes.append(FileSystemChange(watch: directoryWatch, kind: .forgotten, isDirectory: true))
                output.removedDirectories.append(named.handle)
            }
            return
        }
        // The kernel merges entry events on one name, so `create | delete` may be either
        // order. Deletion first, then creation: the stat or listing the creation causes finds
        // what is there now, whichever order it was.
        func append(_ kind: ChangeKind) {
            output.changes.append(
                FileSystemChange(watch: directoryWatch, kind: kind, name: named.name, isDirectory: isDirectory))
        }
        if mask.contains(.delete) { append(.removed) }
        if mask.contains(.create) { append(.created) }
        var contents: ChangeKind = []
        if mask.contains(.modify) { contents.insert(.modified) }
        if mask.contains(.closeWrite) { contents.insert(.closedAfterWrite) }
        if mask.contains(.attrib) { contents.insert(.attributes) }
        if !contents.isEmpty { append(contents) }
        // An open on its own: the last-open log takes it out of the batch, and the rest must
        // still reach the tree. A directory opened (by a crawl, say) is no file used.
        if mask.contains(.open), !isDirectory { append(.opened) }
    }

    /// One rename record becomes inotify's pair under a fresh cookie; a half whose
    /// directory is outside the table is left out, which the tree reads as a move in from
    /// outside (or, after its window, out of the tree).
    private mutating func translateRename(
        _ event: FanotifyEvent, isDirectory: Bool, watch: (FileHandleKey) -> Int32?, into output: inout Output
    ) {
        let cookie = nextCookie
        nextCookie = nextCookie == UInt32.max ? 1 : nextCookie + 1
        if let old = event.record(.oldDirectoryName), let from = watch(old.handle) {
            output.changes.append(
                FileSystemChange(
                    watch: from, kind: .movedFrom, name: old.name, isDirectory: isDirectory, cookie: cookie))
        }
        if let new = event.record(.newDirectoryName), let to = watch(new.handle) {
            output.changes.append(
                FileSystemChange(watch: to, kind: .movedTo, name: new.name, isDirectory: isDirectory, cookie: cookie))
        }
    }

    private func noteFileChange(_ mask: FanotifyMask, object: FileHandleKey?, into output: inout Output) {
        // A file whose last link went (`deleteSelf`) is gone: each name the tree held had its
        // own delete event.
        guard !mask.contains(.onDirectory), !mask.contains(.deleteSelf),
            !mask.isDisjoint(with: [.modify, .closeWrite, .attrib]),
            let object, output.seenFiles.insert(object).inserted
        else { return }
        output.changedFiles.append(object)
    }
}
