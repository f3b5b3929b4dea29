import QuotaWatchCore

/// A `status --quotas` row with what the view draws of it; the rest (rule, size, rates) as a
/// quiet allocated-size quota reports them.
func quotaRow(
    path: String, used: UInt64?, limit: UInt64, effectiveLimit: UInt64, state: QuotaState
) -> QuotaStatus.Row {
    QuotaStatus.Row(
        path: path, rule: path, size: .allocated, used: used, limit: limit, effectiveLimit: effectiveLimit,
        state: state, secondsSinceChange: nil, bytesPerSecond: 0, secondsToBreach: nil)
}
