import QuotaWatchCore

/// Directories that came, moved or went since the engine last looked: an append-only log the
/// engine drains after each turn, for the policy layer to place them under its rules. The
/// tree keeps none (``LiveTree/structureChanges`` is nil) when no rule is configured, so
/// logging then costs one nil check.
package struct StructureChanges: Sendable, Equatable {
    /// Tops of subtrees that were added (created, moved in from outside, crawled again) or
    /// renamed: each one and everything below it needs placing again.
    package var placed: [DirectoryID] = []
    /// Every directory that left the tree, subtree members included. Their ids may already
    /// have been reused by the time the log is drained, so these are applied first.
    package var removed: [DirectoryID] = []
    /// Files re-stat'ed in the directories listed in ``LiveTree/fileLogDirectories`` (those
    /// that may hold leftover candidates): written, renamed in, or gone.
    package var files: [FileName] = []

    /// A name in a directory of the tree.
    package struct FileName: Hashable, Sendable {
        package var directory: DirectoryID
        package var name: [UInt8]
    }

    package init() {}

    package var isEmpty: Bool { placed.isEmpty && removed.isEmpty && files.isEmpty }
}

extension LiveTree {
    /// Starts (or stops, with false) logging structure changes.
    package mutating func logStructureChanges(_ enabled: Bool) {
        structureChanges = enabled ? StructureChanges() : nil
    }

    /// Logs `name` in `directory` for the leftover rules, when that directory is one they
    /// follow: a file there was re-stat'ed, or left its name (removed, or renamed away).
    mutating func logFile(named name: [UInt8], in directory: DirectoryID) {
        guard structureChanges != nil, !fileLogDirectories.isEmpty, fileLogDirectories.contains(directory) else {
            return
        }
        structureChanges?.files.append(StructureChanges.FileName(directory: directory, name: name))
    }

    /// The changes logged since the last call, leaving the log empty (and still on).
    package mutating func drainStructureChanges() -> StructureChanges {
        guard let changes = structureChanges else { return StructureChanges() }
        structureChanges = StructureChanges()
        return changes
    }
}
