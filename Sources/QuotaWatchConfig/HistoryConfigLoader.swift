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
            config.sampleEvery = try value.duration(in: ValueRanges.historySample)
        }
        if let value = map["keep"] {
            config.keep = try value.duration(in: ValueRanges.historyKeep)
        }
        if let value = map["max_size"] {
            config.maximumBytes = try value.size(in: ValueRanges.historyMaximumBytes)
        }
        return config
    }
}
