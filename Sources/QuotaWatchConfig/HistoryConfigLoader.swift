import QuotaWatchPolicy

/// The config's `history:` section. Errors point at the node, as everywhere in the loader.
extension PolicyConfigLoader {
    static let historyTopKeys = ["history"]

    static func history(_ top: Mapping) throws(ConfigError) -> HistoryConfig {
        var config = HistoryConfig()
        guard let field = top["history"] else { return config }
        // `history: true` and `history: false` are short for `enabled:`.
        if case .scalar = field.node.content {
            config.enabled = try field.bool()
            return config
        }
        let map = try field.mapping(allowed: ["enabled", "sample_every", "keep", "max_size"])
        config.enabled = try map["enabled"]?.bool() ?? true
        if let value = map["sample_every"] {
            let every = try value.duration()
            guard every >= .milliseconds(100) else { throw value.error("sample at most every 100ms") }
            config.sampleEvery = every
        }
        if let value = map["keep"] {
            let keep = try value.duration()
            guard keep > .zero else { throw value.error("must be longer than 0s") }
            config.keep = keep
        }
        if let value = map["max_size"] {
            let size = try value.size()
            guard size >= 1_000_000 else { throw value.error("keep at least 1MB of history") }
            config.maximumBytes = size
        }
        return config
    }
}
