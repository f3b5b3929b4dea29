/// What changed in one directory of the tree, in words that name no backend: the one input
/// of the live tree (`LiveTree.apply`).
///
/// A backend (inotify or fanotify) turns what its kernel interface said into these
/// and nothing else reaches the tree, so the tree never sees a mask, a watch flag or a file
/// handle. The shape is watchman's `PendingChange`: a directory, a name in it, what happened.
package struct FileSystemChange: Sendable, Equatable {
    /// The backend's key for the directory the change happened in, or for the directory
    /// itself when `name` is empty: the key its crawl recorded for that directory
    /// (`CrawlReport.watches`, `TallyTree.watch(of:)`). For inotify it is the watch
    /// descriptor; another backend numbers its directories the same way. Ignored for
    /// ``ChangeKind/overflowed``.
    package var watch: Int32
    package var kind: ChangeKind
    /// The entry's name inside the directory, as raw bytes; empty when the change is about
    /// the directory itself (its attributes, its own removal or move).
    package var name: [UInt8]
    /// Whether the named entry (or the directory itself, for a change about it) is a directory.
    package var isDirectory: Bool
    /// Pairs the two halves of one rename: a ``ChangeKind/movedFrom`` and a
    /// ``ChangeKind/movedTo`` carry the same non-zero cookie, and no other pending rename does.
    package var cookie: UInt32

    package init(watch: Int32, kind: ChangeKind, name: [UInt8] = [], isDirectory: Bool = false, cookie: UInt32 = 0) {
        self.watch = watch
        self.kind = kind
        self.name = name
        self.isDirectory = isDirectory
        self.cookie = cookie
    }

    /// Events were lost: only a fresh crawl can be trusted.
    package static let overflow = FileSystemChange(watch: -1, kind: .overflowed)
}

/// What happened, as a set: a backend may report several things about one entry at once
/// (fanotify merges the events of one object into one record; inotify never does), and the
/// tree handles every combination by one precedence (removal and moves before contents).
package struct ChangeKind: OptionSet, Sendable, Hashable {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The name was created (a file, a directory, a link to an existing inode).
    package static let created = ChangeKind(rawValue: 1 << 0)
    /// The name was removed.
    package static let removed = ChangeKind(rawValue: 1 << 1)
    /// The file's contents were written.
    package static let modified = ChangeKind(rawValue: 1 << 2)
    /// A descriptor that wrote to the file was closed.
    package static let closedAfterWrite = ChangeKind(rawValue: 1 << 3)
    /// Metadata changed: permissions, owner, link count, times.
    package static let attributes = ChangeKind(rawValue: 1 << 4)
    /// The first half of a rename: the name left this directory (paired by ``FileSystemChange/cookie``).
    package static let movedFrom = ChangeKind(rawValue: 1 << 5)
    /// The second half of a rename: the name arrived in this directory.
    package static let movedTo = ChangeKind(rawValue: 1 << 6)
    /// The file was opened (reported only where cleanup's `order: lru` asked for it).
    package static let opened = ChangeKind(rawValue: 1 << 7)
    /// The directory itself was removed.
    package static let selfRemoved = ChangeKind(rawValue: 1 << 8)
    /// The directory itself was moved.
    package static let selfMoved = ChangeKind(rawValue: 1 << 9)
    /// The file system the directory is on was unmounted.
    package static let unmounted = ChangeKind(rawValue: 1 << 10)
    /// The backend lost events.
    package static let overflowed = ChangeKind(rawValue: 1 << 11)
    /// The backend stopped reporting on this directory (its key may be reused from now on).
    package static let forgotten = ChangeKind(rawValue: 1 << 12)

    /// inotifywait's names, in the order of the bits, for `--trace`.
    static let names: [(ChangeKind, String)] = [
        (.modified, "MODIFY"), (.attributes, "ATTRIB"), (.closedAfterWrite, "CLOSE_WRITE"), (.opened, "OPEN"),
        (.movedFrom, "MOVED_FROM"), (.movedTo, "MOVED_TO"), (.created, "CREATE"), (.removed, "DELETE"),
        (.selfRemoved, "DELETE_SELF"), (.selfMoved, "MOVE_SELF"), (.unmounted, "UNMOUNT"),
        (.overflowed, "Q_OVERFLOW"), (.forgotten, "IGNORED"),
    ]
}

extension FileSystemChange: CustomStringConvertible {
    /// What happened in inotifywait's words ("CREATE,ISDIR"), whatever the backend: the
    /// `--trace` line.
    package var description: String {
        var words = ChangeKind.names.filter { kind.contains($0.0) }.map(\.1)
        if isDirectory { words.append("ISDIR") }
        return words.isEmpty ? "0x0" : words.joined(separator: ",")
    }
}
