/// `history --growth PATH --json`: the sizes history sampled for one directory, oldest first.
/// Golden file `history-growth`.
///
/// `{"path":"Caches/a","samples":[{"allocated":N,"apparent":N,"reason":"periodic","time":"…"}]}`
package struct HistoryGrowthDocument: Codable, Sendable, Equatable {
    package struct Sample: Codable, Sendable, Equatable {
        /// UTC, milliseconds, as every line of the contract writes a time.
        package var time: String
        package var allocated: UInt64
        package var apparent: UInt64
        /// Why it was taken: `periodic`, or the event that made it (`quota_breach`, …).
        package var reason: String

        package init(time: String, allocated: UInt64, apparent: UInt64, reason: String) {
            self.time = time
            self.allocated = allocated
            self.apparent = apparent
            self.reason = reason
        }
    }

    /// As given on the command line, relative to ROOT.
    package var path: String
    package var samples: [Sample]

    package init(path: String, samples: [Sample]) {
        self.path = path
        self.samples = samples
    }
}
