/// The config's `history:` section: whether `run` records the event history and how. Read at
/// start, like the cleaners; a SIGHUP does not change it. `run`'s `--history*` options are
/// merged over it.
package struct HistoryConfig: Sendable, Equatable {
    /// Whether to record: on unless the section says `enabled: false` (or `history: false`).
    package var enabled = true
    /// How often ROOT and the quota directories are sampled; nil for the default.
    package var sampleEvery: Duration?
    /// Rows older than this are dropped; nil for the default.
    package var keep: Duration?
    /// The oldest rows are dropped beyond this size; nil for the default.
    package var maximumBytes: UInt64?

    package static let defaultSampleEvery: Duration = .seconds(300)
    package static let defaultKeep: Duration = .seconds(30 * 86_400)
    package static let defaultMaximumBytes: UInt64 = 100_000_000

    package init() {}
}
