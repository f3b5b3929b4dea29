/// The state of one quota directory. The raw values are the JSON strings of the contract
/// (`status --quotas`'s `state`, the `quota_*` event kinds' suffix).
package enum QuotaState: String, Codable, Sendable, Hashable, CaseIterable {
    case ok
    case warning
    case breach
}
