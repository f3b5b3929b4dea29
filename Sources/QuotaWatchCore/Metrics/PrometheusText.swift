/// The Prometheus text exposition format, version 0.0.4, of a ``MetricsSnapshot``.
///
/// Names follow Prometheus's conventions: the `quotawatch_` prefix, base units (bytes,
/// seconds) in the name, `_total` on counters, `_info` on the build information. Labels are
/// bounded: a series per quota (directory, rule) and per top-level directory, never per file.
/// A label value is the path as every other report shows it (``EscapedName``: bytes that are
/// not UTF-8 as `\xNN`), then escaped for the format (backslash, double quote, newline).
package enum PrometheusText {
    /// The `Content-Type` of a scrape's reply.
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    package static func render(_ snapshot: MetricsSnapshot) -> String { render([snapshot]) }

    /// One exposition for every root a daemon serves: each family once, with the samples of
    /// every root in it, and a `root` label on every series that belongs to a root. The label is
    /// bounded by the roots the daemon was given (or its config's `roots:` matched).
    package static func render(_ snapshots: [MetricsSnapshot]) -> String {
        var out = FamilyWriter()
        if let version = snapshots.first?.version {
            out.gauge("build_info", "QuotaWatch's version; the value is always 1.", [(["version": version], "1")])
        }
        for snapshot in snapshots {
            out.root = snapshot.root
            rootFamilies(snapshot, into: &out)
        }
        return out.text
    }

    private static func rootFamilies(_ s: MetricsSnapshot, into out: inout FamilyWriter) {
        out.gauge(
            "root_info", "A watched root and this host's name (uname -n); the value is always 1.",
            [(["host": s.host], "1")])
        out.gauge("ready", "1 once the first crawl is done and changes are followed.", [([:], flag(s.ready))])
        out.gauge(
            "watcher_up", "1 while inotify events keep the tallies exact (after the first crawl).",
            [([:], flag(s.ready))])
        out.gauge(
            "watcher_degraded", "1 while some subtree has no inotify watch and is polled instead.",
            [([:], flag(s.degradedSubtrees > 0))])
        out.gauge(
            "degraded_subtrees", "Subtrees polled for want of an inotify watch.", [([:], "\(s.degradedSubtrees)")])
        out.gauge(
            "resyncing", "1 between a kernel queue overflow and the end of the resync it starts.",
            [([:], flag(s.resyncing))])
        out.gauge("watches", "inotify watches held: one per watched directory.", [([:], "\(s.watches)")])

        out.gauge(
            "root_allocated_bytes", "Disk space the root's tree takes, as du -sB1 counts it.",
            [([:], "\(s.rootTally.usage.allocated)")])
        out.gauge(
            "root_apparent_bytes", "Apparent size of the root's tree, as du -sb counts it.",
            [([:], "\(s.rootTally.usage.apparent)")])
        out.gauge("root_files", "Non-directory names below the root.", [([:], "\(s.rootTally.files)")])
        out.gauge("root_directories", "Directories below the root.", [([:], "\(s.rootTally.dirs)")])
        out.gauge(
            "directory_allocated_bytes", "Disk space of a top-level or quota directory's subtree (du -sB1).",
            s.directories.map { (["path": $0.path], "\($0.usage.allocated)") })
        out.gauge(
            "directory_apparent_bytes", "Apparent size of a top-level or quota directory's subtree (du -sb).",
            s.directories.map { (["path": $0.path], "\($0.usage.apparent)") })
        out.gauge(
            "directories_omitted", "Top-level directories left out of directory_*_bytes (only the largest are shown).",
            [([:], "\(s.omittedDirectories)")])

        quotas(s.quotas, into: &out)

        if let level = s.level {
            out.gauge(
                "level", "The disk level: 1 for the current one, 0 for the others.",
                level.all.map { (["level": $0], flag($0 == level.current)) })
        }
        if let free = s.freeBytes {
            out.gauge("free_bytes", "Free space of the root's file system for unprivileged users.", [([:], "\(free)")])
        }
        if let total = s.totalBytes {
            out.gauge("filesystem_size_bytes", "Size of the root's file system.", [([:], "\(total)")])
        }
        counters(s.counters, into: &out)
    }

    private static func quotas(_ quotas: [QuotaStatus.Row], into out: inout FamilyWriter) {
        // Every family of a quota carries the same labels (`size` is fixed by the rule), so
        // `used_bytes / effective_limit_bytes` matches one to one without ignoring(...).
        func labels(_ quota: QuotaStatus.Row) -> [String: String] {
            ["path": quota.path, "rule": quota.rule, "size": quota.size.rawValue]
        }
        out.gauge(
            "quota_used_bytes", "The size a quota's rule counts (its size label: allocated or apparent).",
            quotas.compactMap { quota in quota.used.map { (labels(quota), "\($0)") } })
        out.gauge(
            "quota_limit_bytes", "A quota's limit (a budget group's whole budget).",
            quotas.map { (labels($0), "\($0.limit)") })
        out.gauge(
            "quota_effective_limit_bytes", "The limit in force now (budgets shrink it at higher disk levels).",
            quotas.map { (labels($0), "\($0.effectiveLimit)") })
        out.gauge(
            "quota_breached", "1 while a quota directory is past its effective limit.",
            quotas.map { (labels($0), flag($0.state == .breach)) })
        out.gauge(
            "quota_state", "A quota's state: 1 for the current one, 0 for the others.",
            quotas.flatMap { quota in
                QuotaState.allCases.map { state in
                    (labels(quota).merging(["state": state.rawValue]) { $1 }, flag(state == quota.state))
                }
            })
        out.gauge(
            "quota_growth_bytes_per_second", "How fast a quota directory grows, as the forecast measures it.",
            quotas.map { (labels($0), number($0.bytesPerSecond)) })
        out.gauge(
            "quota_seconds_to_breach", "When the forecast expects the quota to be breached; absent when it does not.",
            quotas.compactMap { quota in quota.secondsToBreach.map { (labels(quota), number($0)) } })
    }

    private static func counters(_ c: MetricsSnapshot.Counters, into out: inout FamilyWriter) {
        out.counter("inotify_events_total", "inotify events read.", c.inotifyEvents)
        out.counter("overflows_total", "Kernel event queue overflows, each followed by a resync.", c.overflows)
        out.counter(
            "relisted_directories_total", "Directories listed again after the first crawl.", c.relistedDirectories)
        out.counter("quota_breaches_total", "quota_breach events.", c.quotaBreaches)
        out.counter("quota_warnings_total", "quota_warning events.", c.quotaWarnings)
        out.counter("quota_forecasts_total", "quota_forecast events.", c.forecasts)
        out.counter("level_changes_total", "level events: the disk level changed.", c.levelChanges)
        out.counter("leftovers_total", "Download leftovers reported.", c.leftovers)
        out.counter("leftover_bytes_total", "Disk space of the download leftovers reported.", c.leftoverBytes)
        out.counter("cleanup_runs_total", "Cleanup runs finished (dry runs included).", c.cleanupRuns)
        out.counter("cleanup_removed_files_total", "Files the cleaners removed (not in dry runs).", c.removedFiles)
        out.counter(
            "cleanup_removed_bytes_total", "Disk space the cleaners freed (not in dry runs).", c.removedBytes)
        out.counter("hook_failures_total", "Alert hook runs that failed or timed out.", c.hookFailures)
        guard !c.verifyCorrections.isEmpty else { return }
        out.labelledCounter(
            "verify_corrections_total",
            "Differences the verification sweep found and corrected that no event had reported, by reason.",
            c.verifyCorrections.keys.sorted().map { (["reason": $0], c.verifyCorrections[$0]!) })
        out.counter("verify_checked_total", "Directories and files the verification sweep stat'ed.", c.verifyChecked)
        out.counter("verify_passes_total", "Verification sweeps finished over the whole tree.", c.verifyPasses)
    }

    // MARK: The format

    /// A label value with `\`, `"` and newline escaped.
    package static func escapeLabelValue(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// HELP text with `\` and newline escaped.
    static func escapeHelp(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A float as the format writes it: `+Inf`, `-Inf`, `NaN`, else Swift's shortest exact form.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return "\(Int64(value))" }
        return "\(value)"
    }

    private static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}

/// Writes metric families: HELP and TYPE once, then the samples of every root together, in
/// the order the families first came. The `root` label of the root being written is added to
/// each of its samples.
private struct FamilyWriter {
    private struct Family {
        var head: String
        var lines = ""
    }

    /// The root whose samples come next; nil for process-wide families.
    var root: String?
    private var families: [Family] = []
    private var index: [String: Int] = [:]

    var text: String { families.lazy.filter { !$0.lines.isEmpty }.map { $0.head + $0.lines }.joined() }

    mutating func gauge(_ name: String, _ help: String, _ samples: [([String: String], String)]) {
        family(name, type: "gauge", help: help, samples)
    }

    mutating func counter(_ name: String, _ help: String, _ value: UInt64) {
        family(name, type: "counter", help: help, [([:], "\(value)")])
    }

    mutating func labelledCounter(_ name: String, _ help: String, _ samples: [([String: String], UInt64)]) {
        family(name, type: "counter", help: help, samples.map { ($0.0, "\($0.1)") })
    }

    private mutating func family(_ name: String, type: String, help: String, _ samples: [([String: String], String)]) {
        guard !samples.isEmpty else { return }
        let full = "quotawatch_" + name
        let position =
            index[full]
            ?? {
                families.append(
                    Family(head: "# HELP \(full) \(PrometheusText.escapeHelp(help))\n# TYPE \(full) \(type)\n"))
                index[full] = families.count - 1
                return families.count - 1
            }()
        for (given, value) in samples {
            var labels = given
            if let root { labels["root"] = root }
            var line = full
            if !labels.isEmpty {
                // Label names sorted, so every line is stable.
                let pairs = labels.keys.sorted().map { "\($0)=\"\(PrometheusText.escapeLabelValue(labels[$0]!))\"" }
                line += "{" + pairs.joined(separator: ",") + "}"
            }
            families[position].lines += line + " \(value)\n"
        }
    }
}
