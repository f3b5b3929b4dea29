/// Why a cleanup run happened, as the contract writes it: `{"kind":…}` and the fields of its
/// kind. The `cleanup` event's `triggers`, a registered cleaner's and a command cleaner's
/// context carry it.
package enum ContractTrigger: Sendable, Hashable, Codable {
    /// `quota_breach`: a quota directory went above its effective limit.
    case quotaBreach(path: String)
    /// `level`: the disk level changed.
    case level(from: DiskLevel, to: DiskLevel)
    /// `app_version`: the first start with a new app version; `old` is null on the very first.
    case appVersion(old: String?, new: String)
    /// `periodic`: the fallback run, at the level in force.
    case periodic(level: DiskLevel)
    /// `leftover`: a file became a leftover of `rule`.
    case leftover(path: String, rule: String)
    /// `manual`: by hand, with the name the caller gave.
    case manual(name: String)
    /// A kind this build does not know (a newer daemon's); only its kind is kept.
    case other(kind: String)

    package var kind: String {
        switch self {
        case .quotaBreach: "quota_breach"
        case .level: "level"
        case .appVersion: "app_version"
        case .periodic: "periodic"
        case .leftover: "leftover"
        case .manual: "manual"
        case .other(let kind): kind
        }
    }

    private enum CodingKeys: String, CodingKey {
        case kind, path, from, to, old, new, level, rule, name
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .quotaBreach(let path): try container.encode(path, forKey: .path)
        case .level(let from, let to):
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
        case .appVersion(let old, let new):
            try container.encode(old, forKey: .old)
            try container.encode(new, forKey: .new)
        case .periodic(let level): try container.encode(level, forKey: .level)
        case .leftover(let path, let rule):
            try container.encode(path, forKey: .path)
            try container.encode(rule, forKey: .rule)
        case .manual(let name): try container.encode(name, forKey: .name)
        case .other: break
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        switch kind {
        case "quota_breach": self = .quotaBreach(path: try container.decode(String.self, forKey: .path))
        case "level":
            self = .level(
                from: try container.decode(DiskLevel.self, forKey: .from),
                to: try container.decode(DiskLevel.self, forKey: .to))
        case "app_version":
            self = .appVersion(
                old: try container.decodeIfPresent(String.self, forKey: .old),
                new: try container.decode(String.self, forKey: .new))
        case "periodic": self = .periodic(level: try container.decode(DiskLevel.self, forKey: .level))
        case "leftover":
            self = .leftover(
                path: try container.decode(String.self, forKey: .path),
                rule: try container.decode(String.self, forKey: .rule))
        case "manual": self = .manual(name: try container.decode(String.self, forKey: .name))
        default: self = .other(kind: kind)
        }
    }
}
