/// What a scan of one tree must report, from the du oracle and the find
/// census, and a comparison that lists every difference.
public struct ScanExpectation: Sendable {
    public let rootPath: String
    public let census: TreeCensus
    public let du: DuOracle

    public init(rootPath: String, census: TreeCensus, du: DuOracle) {
        self.rootPath = rootPath
        self.census = census
        self.du = du
    }

    /// Takes the census of `root` in `tree` and runs du on each directory it
    /// lists, both as `user` when given.
    public static func measure(
        _ tree: TempTree,
        root: TreePath = .root,
        as user: UserIdentity? = nil
    ) throws -> ScanExpectation {
        let census = try TreeCensus.take(of: tree, root: root, as: user)
        let du = try DuOracle.measure(tree, root: root, directories: census.directories, as: user)
        return ScanExpectation(rootPath: tree.absolutePath(root), census: census, du: du)
    }

    /// Every way `report` differs from the expectation, at most `limit` of
    /// them, each on its own line. Directories in `ignoring` (and below them)
    /// are not compared; with `comparingCounts` false, files and dirs are not
    /// compared.
    public func mismatches(
        in report: ScanReport,
        ignoring ignored: [TreePath] = [],
        comparingCounts: Bool = true,
        limit: Int = 30
    ) -> [String] {
        var problems: [String] = []
        if report.root != rootPath {
            problems.append("root is \(quoted(report.root)), expected \(quoted(rootPath))")
        }
        for path in report.duplicatePaths {
            problems.append("\(quoted(path)) is listed more than once")
        }
        let expected = census.directories.filter { path in !ignored.contains { path.isWithin($0) } }
        let expectedPaths = Set(expected.map(\.reportPath))
        let ignoredPaths = Set(census.directories.filter { !expectedPaths.contains($0.reportPath) }.map(\.reportPath))
        let reported = report.directoriesByPath
        for path in expected where reported[path.reportPath] == nil {
            problems.append("\(quoted(path.reportPath)) is missing")
        }
        for entry in report.directories
        where !expectedPaths.contains(entry.path) && !ignoredPaths.contains(entry.path) {
            problems.append("\(quoted(entry.path)) is not a directory of the tree (or is misescaped)")
        }
        for path in expected {
            guard let entry = reported[path.reportPath] else { continue }
            if let sizes = du.sizes[path] {
                if entry.allocated != sizes.allocated {
                    problems.append(
                        "\(quoted(path.reportPath)): allocated \(entry.allocated), du -sB1 says \(sizes.allocated)"
                    )
                }
                if entry.apparent != sizes.apparent {
                    problems.append(
                        "\(quoted(path.reportPath)): apparent \(entry.apparent), du -sb says \(sizes.apparent)"
                    )
                }
            } else {
                problems.append("\(quoted(path.reportPath)): du has no size for it (oracle problem)")
            }
            if comparingCounts, let counts = census.counts[path] {
                if entry.files != counts.files || entry.dirs != counts.dirs {
                    problems.append(
                        "\(quoted(path.reportPath)): files \(entry.files), dirs \(entry.dirs); find counts \(counts)"
                    )
                }
            }
        }
        if problems.count > limit {
            let hidden = problems.count - limit
            return Array(problems.prefix(limit)) + ["… and \(hidden) more"]
        }
        return problems
    }

    private func quoted(_ path: String) -> String {
        "\""
            + path.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }
            .joined() + "\""
    }
}
