/// Everything `/metrics` shows, as plain values: made on the engine thread in
/// O(quota directories + top-level directories), rendered on a scrape's thread by
/// ``PrometheusText``.
///
/// Paths are as every report shows them (``EscapedName``), relative to the root.
package struct MetricsSnapshot: Sendable, Equatable {
    /// One value out of a fixed set, exported as a Prometheus state set: one series per
    /// member, 1 for the current one and 0 for the others.
    package struct StateSet: Sendable, Equatable {
        package var current: String
        package var all: [String]

        package init(current: String, all: [String]) {
            self.current = current
            self.all = all
        }
    }

    /// A top-level directory or a quota directory.
    package struct Directory: Sendable, Equatable {
        package var path: String
        package var usage: Usage

        package init(path: String, usage: Usage) {
            self.path = path
            self.usage = usage
        }
    }

    /// Counts of events since start: the engine's own, and those counted from the events it
    /// emitted.
    package struct Counters: Sendable, Equatable {
        package var inotifyEvents: UInt64 = 0
        package var overflows: UInt64 = 0
        package var relistedDirectories: UInt64 = 0
        package var quotaBreaches: UInt64 = 0
        package var quotaWarnings: UInt64 = 0
        package var forecasts: UInt64 = 0
        package var levelChanges: UInt64 = 0
        package var leftovers: UInt64 = 0
        package var leftoverBytes: UInt64 = 0
        package var cleanupRuns: UInt64 = 0
        package var removedFiles: UInt64 = 0
        package var removedBytes: UInt64 = 0
        package var hookFailures: UInt64 = 0
        /// The verification sweep's corrections by reason (every reason, zeros too); empty
        /// when the sweep is off.
        package var verifyCorrections: [String: UInt64] = [:]
        /// Names the verification sweep has stat'ed, and its passes finished.
        package var verifyChecked: UInt64 = 0
        package var verifyPasses: UInt64 = 0

        package init() {}
    }

    package var version: String
    /// The root as reports show it: absolute, escaped.
    package var root: String
    /// This machine's name (`uname -n`): with `root`, what names this daemon in alerts.
    package var host = ""
    /// The first crawl is done and events are followed.
    package var ready = false
    package var rootTally = Tally.zero
    /// Top-level and quota directories, each path once, in byte order.
    package var directories: [Directory] = []
    /// Top-level directories left out because there were more than the exporter shows.
    package var omittedDirectories = 0
    package var quotas: [QuotaStatus.Row] = []
    /// The disk level; nil before the policy layer has started.
    package var level: StateSet?
    package var freeBytes: UInt64?
    package var totalBytes: UInt64?
    package var watches = 0
    /// Subtrees polled for want of an inotify watch.
    package var degradedSubtrees = 0
    /// An overflow was seen and the resync has not finished.
    package var resyncing = false
    package var counters = Counters()

    package init(version: String, root: String) {
        self.version = version
        self.root = root
    }
}
