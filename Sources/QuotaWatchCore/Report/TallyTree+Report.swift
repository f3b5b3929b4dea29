extension TallyTree {
    /// Every directory down to `maxDepth` (all when nil), parents before children and
    /// siblings in byte order of their names, so the output is stable.
    package func report(root: String, maxDepth: Int? = nil) -> TreeReport {
        report(root: root, selection: TreeSelection(depth: maxDepth))
    }

    /// The directories `selection` asks for (`--depth`, `--top`), as `status` selects them.
    package func report(root: String, selection: TreeSelection) -> TreeReport {
        TreeReport(root: root, directories: (rows(selection) ?? []).map(\.report))
    }
}
