/// Which of a directory's two totals a rule counts. The raw values are the JSON strings of
/// the contract (`status --quotas`'s `size`, the quota events' size field).
package enum SizeKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// Blocks on disk, as `du -sB1`: what fills the disk. The default.
    case allocated
    /// Sizes as `ls` shows them, as `du -sb`: what a program wrote.
    case apparent
}
