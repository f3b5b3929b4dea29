import QuotaWatchCore

/// `status --quotas --state S --top N`: which quota rows are printed, after the daemon sent
/// them all.
struct QuotaFilter: Equatable {
    var state: QuotaState?
    var top: Int?

    /// The rows in `state`, then the `top` most used for their effective limit (a quota past
    /// its limit first), in the order they came otherwise.
    func apply(_ rows: [QuotaStatus.Row]) -> [QuotaStatus.Row] {
        var kept = rows
        if let state { kept = kept.filter { $0.state == state } }
        guard let top, kept.count > top else { return kept }
        let chosen = kept.indices.sorted { Self.share(kept[$0]) > Self.share(kept[$1]) }.prefix(top)
        return Set(chosen).sorted().map { kept[$0] }
    }

    /// Used over effective limit; a quota whose directory is gone counts as empty.
    static func share(_ row: QuotaStatus.Row) -> Double {
        guard row.effectiveLimit > 0 else { return (row.used ?? 0) > 0 ? .infinity : 0 }
        return Double(row.used ?? 0) / Double(row.effectiveLimit)
    }
}

extension ValueGrammar where Value == QuotaState {
    static var quotaState: Self {
        Self(completing: .words(QuotaState.allCases.map(\.rawValue))) { word, option throws(InvalidValue) in
            guard let state = QuotaState(rawValue: word.text) else {
                throw InvalidValue(
                    message: "Unknown quota state '\(word.shown)' for \(option): use breach, warning or ok")
            }
            return state
        }
    }
}
