/// Everything `/metrics` shows, as plain values: made on the engine thread in
/// O(quota directories + top-level directories), rendered on a scrape's thread by
/// ``PrometheusText``.
///
/// Paths are as every report shows them (``EscapedName``), relative to the root.
public struct MetricsSnapshot: Sendable, Equatable {
    /// One value out of a fixed set, exported as a Prometheus state set: one series per
    /// member, 1 for the current one and 0 for the others.
    public struct StateSet: Sendable, Equatable {
        public var current: String
        public var all: [String]

        public init(current: String, all: [String]) {
            self.current = current
            self.all = all
        }
    }

    /// A top-level directory or a quota directory.
    public struct Directory: Sendable, Equatable {
        public var path: String
        public var usage: Usage

        public init(path: String, usage: Usage) {
            self.path = path
            self.usage = usage
        }
    }

    /// Counts of events since start: the engine's own, and those counted from the events it
    /// emitted.
    public struct Counters: Sendable, Equatable {
        public var inotifyEvents: UInt64 = 0
        public var overflows: UInt64 = 0
        public var relistedDirectories: UInt64 = 0
        public var quotaBreaches: UInt64 = 0
        public var quotaWarnings: UInt64 = 0
        public var forecasts: UInt64 = 0
        public var levelChanges: UInt64 = 0
        public var leftovers: UInt64 = 0
        public var leftoverBytes: UInt64 = 0
        public var cleanupRuns: UInt64 = 0
        public var removedFiles: UInt64 = 0
        public var removedBytes: UInt64 = 0
        public var hookFailures: UInt64 = 0

        public init() {}
    }

    public var version: String
    /// The root as reports show it: absolute, escaped.
    public var root: String
    /// This machine's name (`uname -n`): with `root`, what names this daemon in alerts.
    public var host = ""
    /// The first crawl is done and events are followed.
    public var ready = false
    public var rootTally = Tally.zero
    /// Top-level and quota directories, each path once, in byte order.
    public var directories: [Directory] = []
    /// Top-level directories left out because there were more than the exporter shows.
    public var omittedDirectories = 0
    public var quotas: [QuotaStatus.Row] = []
    /// The disk level; nil before the policy layer has started.
    public var level: StateSet?
    public var freeBytes: UInt64?
    public var totalBytes: UInt64?
    public var watches = 0
    /// Subtrees polled for want of an inotify watch.
    public var degradedSubtrees = 0
    /// An overflow was seen and the resync has not finished.
    public var resyncing = false
    public var counters = Counters()

    public init(version: String, root: String) {
        self.version = version
        self.root = root
    }
}
