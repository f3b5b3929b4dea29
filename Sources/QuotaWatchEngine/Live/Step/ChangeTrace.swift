import QuotaWatchCore

/// `run --trace`: each change of a batch as the log shows it, its directory by path.
enum ChangeTrace {
    static func text(
        _ batch: [FileSystemChange], _ live: LiveTree<KernelFileSystem>, root rootDisplay: String
    ) -> String {
        let tree = live.tree
        // The root as a name is shown, like every name: rootDisplay is escaped for JSON only.
        let root = HumanText.escaped(rootDisplay)
        var text = ""
        for change in batch {
            let directory = live.directory(forWatch: change.watch)
            let path = directory.map { directory in
                directory == tree.root ? root : root + "/" + HumanText.name(tree.relativePath(of: directory))
            }
            text += "\(path ?? "?") \(change) \(HumanText.name(change.name))\n"
        }
        return text
    }
}
