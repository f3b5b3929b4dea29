import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// A path `--path` (or `watch`'s `d`) names, with the inode it led to when the selection was
/// planned: removed whole, a file or a directory with everything below it, by the
/// ``Deleter``'s tree removal, category or not.
package struct NamedPath: Sendable, Hashable {
    /// Relative to ROOT, raw bytes.
    package var path: [UInt8]
    package var identity: FileIdentity

    package init(path: [UInt8], identity: FileIdentity) {
        self.path = path
        self.identity = identity
    }

    /// The audit rule of these removals: the user named the path, no category chose it.
    package static let auditRule = "path"
}

/// How the paths of a selection are taken. Without `--older-than` or `--larger-than` each is
/// removed whole; with them, a path only narrows the page's files to those below it (their
/// ages and sizes are the page's).
package enum NamedPaths {
    package static func removedWhole(_ selection: CleanSelection) -> Bool {
        !selection.paths.isEmpty && selection.olderThan == nil && selection.largerThan == nil
    }

    /// Where each named path leads now, looked up from `root` one component at a time without
    /// following a symlink: a path that leads nowhere, or through a symlink, is an error that
    /// names it.
    package static func resolve(_ paths: [[UInt8]], root: FileDescriptor) -> Result<[NamedPath], CleanSelectionError> {
        var resolved: [NamedPath] = []
        for path in paths {
            let components = path.split(separator: UInt8(ascii: "/"))
            var prefix: [UInt8] = []
            var status: FileStatus?
            for (index, component) in components.enumerated() {
                prefix += prefix.isEmpty ? Array(component) : [UInt8(ascii: "/")] + component
                do {
                    status = try root.status(of: prefix)
                } catch {
                    return .failure(
                        CleanSelectionError(
                            "--path '\(HumanText.name(path))': \(error == .noSuchFileOrDirectory ? "no such file or directory under ROOT" : "\(error)"); "
                                + "run 'quotawatch clean ROOT' or 'quotawatch status ROOT' to see the names there"))
                }
                if index < components.count - 1, status?.kind != .directory {
                    let what = status?.kind == .symlink ? "a symlink, never followed" : "not a directory"
                    return .failure(
                        CleanSelectionError(
                            "--path '\(HumanText.name(path))': '\(HumanText.name(prefix))' is \(what); "
                                + "name the path inside ROOT that it stands for"))
                }
            }
            guard let status else { continue }
            resolved.append(NamedPath(path: path, identity: FileIdentity(status)))
        }
        return .success(resolved)
    }

    /// What goes as a page item and what goes whole: a named path that is a file of the page
    /// goes as that item (its category stays its audit rule, its hold and protection apply as
    /// on the page); every other named path goes whole, and the chosen items below it with it.
    package static func split(
        chosen: [CleanItem], named: [NamedPath], page: [CleanItem]
    ) -> (items: [CleanItem], named: [NamedPath]) {
        let pagePaths = Set(page.map(\.path))
        let wholes = named.filter { !pagePaths.contains($0.path) }
        return (chosen.filter { !covers(wholes, $0.path) }, wholes)
    }

    /// `item` lies at or below one of `named`: removed with it, not on its own.
    static func covers(_ named: [NamedPath], _ path: [UInt8]) -> Bool {
        named.contains { CleanSelection.covers($0.path, path) }
    }

    /// Removes each named path whole, noting every name removed (directories too, bottom-up)
    /// and every name kept with its reason. False when the audit log refused an intent.
    static func remove(_ named: [NamedPath], remover: Remover, into result: inout CleanupResult) -> Bool {
        for name in named {
            let outcome = remover.remove(path: name.path, identity: name.identity, rule: NamedPath.auditRule)
            guard case .removed(let removal) = outcome else {
                guard result.record(outcome, path: name.path, inDirectory: nil) else { return false }
                continue
            }
            // Each name at what its inode gave back; what only the last name of a hard-linked
            // inode frees, or the tree's rounding, goes to the path named, removed last.
            var items = removal.entries.map { entry in
                RemovedItem(
                    path: entry.path,
                    freedBytes: entry.linkCount > 1 && entry.kind != .directory ? 0 : entry.allocatedBytes,
                    inode: entry.identity.inode)
            }
            let counted = items.reduce(UInt64(0)) { Saturating.sum($0, $1.freedBytes) }
            if let last = items.indices.last, removal.freedBytes > counted {
                items[last].freedBytes = Saturating.sum(items[last].freedBytes, removal.freedBytes - counted)
            }
            result.removed += items
            result.skipped += removal.kept.map { SkippedItem(path: $0.path, reason: $0.reason.description) }
        }
        return true
    }
}
