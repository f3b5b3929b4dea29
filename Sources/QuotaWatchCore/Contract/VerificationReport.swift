/// The background verification sweep in `status --json` (`"engine":{"verification":…}`),
/// absent when the sweep is off (`run --verify-every 0`):
///
///     {"every_seconds":21600,"cpu_budget":0.01,"passes":3,"checked":605000,
///      "corrections":{"allocation":0,"directory":0,"replaced":0,"size":1},
///      "current":{"started":"2026-12-03T10:00:00.000Z","ended":null,"checked":5120,"corrections":0},
///      "last":{"started":"…","ended":"…","checked":200311,"corrections":1}}
///
/// `passes` counts the passes finished and `checked` the names stat'ed since start;
/// `corrections` counts, by reason, every difference the passes found that no event had
/// reported; `current` is the pass going on (null between passes), `last` the last one finished.
package struct VerificationReport: Codable, Sendable, Equatable {
    package struct Pass: Codable, Sendable, Equatable {
        /// ISO 8601, UTC.
        package var started: String
        package var ended: String?
        /// Directories and files stat'ed.
        package var checked: UInt64
        package var corrections: UInt64

        package init(started: String, ended: String?, checked: UInt64, corrections: UInt64) {
            self.started = started
            self.ended = ended
            self.checked = checked
            self.corrections = corrections
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(started, forKey: .started)
            // Null while the pass goes on, rather than absent: the key is always there.
            try container.encode(ended, forKey: .ended)
            try container.encode(checked, forKey: .checked)
            try container.encode(corrections, forKey: .corrections)
        }
    }

    package var everySeconds: Double
    package var cpuBudget: Double
    package var passes: UInt64
    package var checked: UInt64
    package var corrections: [String: UInt64]
    package var current: Pass?
    package var last: Pass?

    enum CodingKeys: String, CodingKey {
        case corrections, current, last, passes, checked
        case everySeconds = "every_seconds"
        case cpuBudget = "cpu_budget"
    }

    package init(
        everySeconds: Double, cpuBudget: Double, passes: UInt64, checked: UInt64, corrections: [String: UInt64],
        current: Pass?, last: Pass?
    ) {
        self.everySeconds = everySeconds
        self.cpuBudget = cpuBudget
        self.passes = passes
        self.checked = checked
        self.corrections = corrections
        self.current = current
        self.last = last
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(everySeconds, forKey: .everySeconds)
        try container.encode(cpuBudget, forKey: .cpuBudget)
        try container.encode(passes, forKey: .passes)
        try container.encode(checked, forKey: .checked)
        try container.encode(corrections, forKey: .corrections)
        try container.encode(current, forKey: .current)
        try container.encode(last, forKey: .last)
    }
}
