import QuotaWatchCore

/// The history part of `check-config`: whether `run` records, and its sampling and retention,
/// defaults filled in.
extension ConfigSummary {
    static func historyTable(_ history: HistoryConfig) -> String {
        guard history.enabled else { return "\nHISTORY: off (the config's 'history: {enabled: false}')\n" }
        return "\nHISTORY: on (history.sqlite in the state directory)\n"
            + "  samples every \(TimeSpan.format(history.sampleEvery ?? HistoryConfig.defaultSampleEvery)), "
            + "kept \(TimeSpan.format(history.keep ?? HistoryConfig.defaultKeep)), "
            + "at most \(SizeText.exact(history.maximumBytes ?? HistoryConfig.defaultMaximumBytes))\n"
    }

    static func historyDocument(_ history: HistoryConfig) -> ConfigSummaryDocument.History {
        ConfigSummaryDocument.History(
            enabled: history.enabled,
            sampleEvery: ContractNumber((history.sampleEvery ?? HistoryConfig.defaultSampleEvery).secondsValue),
            keep: ContractNumber((history.keep ?? HistoryConfig.defaultKeep).secondsValue),
            maximumBytes: history.maximumBytes ?? HistoryConfig.defaultMaximumBytes)
    }
}
