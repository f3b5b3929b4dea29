/// The config's `history:` section: whether `run` records the event history and how. Read at
/// start, like the cleaners; a SIGHUP does not change it. `run`'s `--history*` options are
/// merged over it.
public struct HistoryConfig: Sendable, Equatable {
    /// Whether to record: on unless the section says `enabled: false` (or `history: false`).
    public var enabled = true
    /// How often ROOT and the quota directories are sampled; nil for the default.
    public var sampleEvery: Duration?
    /// Rows older than this are dropped; nil for the default.
    public var keep: Duration?
    /// The oldest rows are dropped beyond this size; nil for the default.
    public var maximumBytes: UInt64?

    public static let defaultSampleEvery: Duration = .seconds(300)
    public static let defaultKeep: Duration = .seconds(30 * 86_400)
    public static let defaultMaximumBytes: UInt64 = 100_000_000

    public init() {}
}
