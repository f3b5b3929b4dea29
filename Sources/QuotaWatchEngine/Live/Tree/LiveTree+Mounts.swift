import QuotaWatchCore

/// Bind mounts and mounts that come and go.
///
/// - One directory at several places (a bind mount) is one inode, so inotify gives every
///   place the one watch: the watch's first record is in `directoryByWatch`, the others in
///   `otherPlacesByWatch`, and an event on the watch applies to each of them. du counts each
///   place, and so does the tree.
/// - A directory that is one of its own ancestors (`mount --bind a a/b`) is a cycle: du skips
///   it without a word, and so do the crawl and ``createDirectory(named:in:)``.
/// - A mount or unmount below the root raises no inotify event in the directory it covers or
///   uncovers: the engine reads the mount table when it changes and calls
///   ``followMountChange(at:)`` for each place, which lists that place again, and only it.
extension LiveTree {
    /// Whether `directory` is a record of `watch`.
    func holds(_ watch: Int32, _ directory: DirectoryID) -> Bool {
        directoryByWatch[watch] == directory || otherPlacesByWatch[watch]?.contains(directory) == true
    }

    /// inotify dropped the watch (`IN_IGNORED`): no record of it has one any more.
    mutating func forgetWatch(_ watch: Int32) {
        var records = otherPlacesByWatch.removeValue(forKey: watch) ?? []
        if let directory = directoryByWatch.removeValue(forKey: watch) { records.append(directory) }
        for directory in records where tree.contains(directory) && tree.watch(of: directory) == watch {
            tree.setWatch(-1, of: directory)
        }
    }

    /// `directory` leaves the tree: the kernel's watch goes only with the last record of it.
    /// The places it leaves behind are stat'ed again: a place that goes is usually the
    /// directory removed (rmdir leaves a bind mount of it with size 0 and no links), and no
    /// event on the watch says so.
    mutating func releaseWatch(of directory: DirectoryID) {
        let watch = tree.watch(of: directory)
        guard watch >= 0 else { return }
        if var others = otherPlacesByWatch[watch] {
            if directoryByWatch[watch] == directory {
                directoryByWatch[watch] = others.removeFirst()
            } else {
                others.removeAll { $0 == directory }
            }
            otherPlacesByWatch[watch] = others.isEmpty ? nil : others
            if let first = directoryByWatch[watch] { pendingDirectories.insert(first) }
            pendingDirectories.formUnion(others)
            return
        }
        if directoryByWatch[watch] == directory {
            directoryByWatch.removeValue(forKey: watch)
            // The watch of ROOT's parent, bind-mounted below ROOT, stays for ROOT's removal.
            if watch != rootParent?.watch { fileSystem.removeWatch(watch) }
        }
    }

    /// A crawl watched `directory` and got the watch `known` already holds, with the same
    /// inode. If `known` is still where the tree has it, the directory is shown at two places
    /// (a bind mount): both are kept, on the one watch. Else it moved and its events are
    /// still queued, and ``adopt(_:asCopy:)`` decides.
    mutating func addPlace(_ directory: DirectoryID, of known: DirectoryID, watch: Int32) -> Bool {
        guard case .found(let status) = fileSystem.status(of: known, tree: tree), status.inode == tree.inode(of: known),
            status.device == tree.device(of: known)
        else { return false }
        if !holds(watch, directory) { otherPlacesByWatch[watch, default: []].append(directory) }
        return true
    }

    /// Whether a directory with `status`, about to be added in `parent`, is to be left out:
    /// it is `parent` or one of its ancestors (a cycle, which du skips), or on another file
    /// system with `--one-file-system`. O(depth).
    func isLeftOut(_ status: FileStatus, in parent: DirectoryID) -> Bool {
        if oneFileSystem && status.device != tree.device(of: tree.root) { return true }
        var current: DirectoryID? = parent
        while let directory = current {
            if tree.inode(of: directory) == status.inode && tree.device(of: directory) == status.device { return true }
            current = tree.parent(of: directory)
        }
        return false
    }

    /// Something was mounted, unmounted or moved at `components` below the root. When the
    /// tree's record there is not what the path shows now, the place is listed again: the
    /// subtree it covered (or the mount's, when it went) leaves the tree with its watches.
    /// Nothing happens where the parent is not in the tree (left out, unreadable) or the root
    /// itself would be covered.
    package mutating func followMountChange(at components: [[UInt8]]) {
        guard let name = components.last else { return }
        var parent = tree.root
        for component in components.dropLast() {
            guard case .directory(let child)? = tree.entry(named: component, in: parent) else { return }
            parent = child
        }
        guard !unreadable.contains(parent) else { return }
        let existing = tree.entry(named: name, in: parent)
        let lookup = fileSystem.status(of: name, in: parent, tree: tree)
        switch (existing, lookup) {
        case (.directory(let directory)?, .found(let status)):
            if status.inode == tree.inode(of: directory) && status.device == tree.device(of: directory) { return }
        case (.file(let file)?, .found(let status)):
            if status.inode == tree.inode(of: file) && status.kind != .directory {
                pendingNames.insert(PendingName(directory: parent, name: name))
                return
            }
        case (nil, .missing), (_, .directoryUnavailable), (_, .outOfDescriptors), (_, .permissionDenied):
            pendingNames.insert(PendingName(directory: parent, name: name))
            return
        default:
            break
        }
        removeEntry(named: name, in: parent)
        pendingDirectories.insert(parent)
        _ = refresh(PendingName(directory: parent, name: name))
    }

    /// The engine has read the mount table.
    package mutating func noteMountTableRead() { mountTableMayHaveChanged = false }

    /// An event in `directory` on an overlayfs: the directory and each one above it on the same
    /// overlay are stat'ed again at the next flush, since a copy-up gives each of them an upper
    /// directory carrying overlay's extended attributes (often a block of their own) without an
    /// event. O(depth), and nothing off an overlay.
    mutating func restatCopiedUpDirectories(above directory: DirectoryID) {
        let device = tree.device(of: directory)
        guard copyUpDevices.contains(device) else { return }
        var current: DirectoryID? = directory
        while let place = current, tree.device(of: place) == device {
            pendingDirectories.insert(place)
            current = tree.parent(of: place)
        }
    }
}
