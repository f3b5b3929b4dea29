/// What a deletion did: the `clean_delete` reply, and `clean --json`'s deletion (with `root`
/// and `source`). `{"dry_run":false,"error":null,"freed":N,"removed":[{"freed":N,"path":…}],
/// "run":…,"skipped":[{"path":…,"reason":…}]}`; paths relative to ROOT, escaped
/// (``EscapedName``). The cleaning target writes it, the CLI and `watch` read it.
package struct CleanDeletionDocument: Sendable, Hashable, Codable {
    package struct Removed: Sendable, Hashable, Codable {
        package var path: String
        /// Bytes the file system got back.
        package var freed: UInt64

        package init(path: String, freed: UInt64) {
            self.path = path
            self.freed = freed
        }
    }

    package struct Skipped: Sendable, Hashable, Codable {
        package var path: String
        package var reason: String

        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// `clean --json` only: ROOT, and `daemon` or `crawl`.
    package var root: String?
    package var source: String?
    package var run: String
    package var dryRun: Bool
    package var freed: UInt64
    package var removed: [Removed]
    package var skipped: [Skipped]
    /// The selection cleaner's error; null when it finished.
    package var error: String?

    package init(
        run: String, dryRun: Bool, freed: UInt64, removed: [Removed], skipped: [Skipped], error: String?,
        root: String? = nil, source: String? = nil
    ) {
        self.run = run
        self.dryRun = dryRun
        self.freed = freed
        self.removed = removed
        self.skipped = skipped
        self.error = error
        self.root = root
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case root, source, run, freed, removed, skipped, error
        case dryRun = "dry_run"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(root, forKey: .root)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encode(run, forKey: .run)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(freed, forKey: .freed)
        try container.encode(removed, forKey: .removed)
        try container.encode(skipped, forKey: .skipped)
        // Null, not absent, when the run finished.
        try container.encode(error, forKey: .error)
    }
}
