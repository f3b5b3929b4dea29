import QuotaWatchConfig
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchTestSupport
import Testing

/// The bad-input corpus through the real config loader, in process: every config key with
/// every value its kind refuses, and the extremes each allows (the options of `run` with
/// theirs are in the CLI's RunOptionParsingTests). A refusal names the key, the value and what is
/// allowed; an accepted extreme loads and prints without trapping.
@Suite("the bad-value corpus, in process")
struct BadValueCorpusTests {
    private func load(_ text: String) throws(ConfigError) -> PolicyConfig {
        try PolicyConfigLoader.load(Array(text.utf8), file: "corpus.yaml")
    }

    @Test("every config key refuses every value its kind refuses, naming key, value and what is allowed")
    func configKeys() {
        var cases = 0
        for key in BadValueCorpus.configKeys {
            for value in BadValueCorpus.refused(key.kind) {
                cases += 1
                let yaml = key.yaml(value)
                do {
                    let config = try load(yaml)
                    Issue.record("\(key.key) accepted '\(value)': \(config)")
                } catch {
                    let message = error.description
                    #expect(error.key == key.key, "\(key.key) = '\(value)': \(message)")
                    // Named as people see it: controls (a tab, say) in the one escaped form.
                    #expect(message.contains("'\(HumanText.escaped(value))'"), "the value is not named: \(message)")
                    for phrase in key.kind.allowedPhrase {
                        #expect(message.contains(phrase), "\(key.key) = '\(value)': no '\(phrase)' in \(message)")
                    }
                }
            }
        }
        #expect(cases > 1000, "the corpus shrank to \(cases) cases")
    }

    @Test("every config key takes the largest value of its kind, and the smallest it allows")
    func extremesLoad() throws {
        let largest = try load(BadValueCorpus.largestConfig)
        #expect(largest.leftovers.age == .seconds(36500 * 86400) && largest.quotas[0].limit == UInt64.max)
        #expect(largest.history.keep == .seconds(36500 * 86400) && largest.levels.maximumStep == UInt64.max)
        let smallest = try load(BadValueCorpus.smallestConfig)
        #expect(smallest.leftovers.age == .seconds(1) && smallest.history.keep == .seconds(60))
        for config in [largest, smallest] {
            #expect(!ConfigSummary.table(config).isEmpty)
            #expect(!ContractJSON.encode(ConfigSummary.document(config)).isEmpty)
        }
    }

    @Test("each duration key refuses the value just below its minimum, naming the minimum")
    func belowMinimum() {
        let cases: [(String, String, String)] = [
            ("leftovers: {age: 999ms}\n", "leftovers.age", "from 1s to 36500d"),
            ("levels: {check: {normal: 99ms}}\n", "levels.check.normal", "from 100ms to 36500d"),
            ("periodic: {normal: 999ms}\n", "periodic.normal", "from 1s to 36500d"),
            ("history: {keep: 59s}\n", "history.keep", "from 1m to 36500d"),
            ("history: {sample_every: 99ms}\n", "history.sample_every", "from 100ms to 36500d"),
            ("history: {max_size: 999999}\n", "history.max_size", "from 1MB to"),
            ("levels: {step: 4095}\n", "levels.step", "from 4KiB to"),
            ("hooks:\n  - {command: [x], timeout: 0s}\n", "hooks[0].timeout", "from 1ms to 36500d"),
            ("cleaners:\n  - {kind: evict, target: 0.5%}\n", "cleaners[0].target", "from 1% to 100%"),
            ("levels: {scale: {normal: 10.5}}\n", "levels.scale.normal", "from 0 to 10"),
            ("hooks:\n  - {command: [x], queue: 0}\n", "hooks[0].queue", "from 1 to 100000"),
        ]
        for (yaml, key, allowed) in cases {
            #expect {
                try load(yaml)
            } throws: { error in
                guard let error = error as? ConfigError else { return false }
                return error.key == key && error.description.contains(allowed)
            }
        }
    }

    @Test("booleans: YAML's words for true and false, and nothing else")
    func booleans() throws {
        for word in ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"] {
            #expect(try load("history: {enabled: \(word)}\n").history.enabled, "\(word)")
        }
        for word in ["false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"] {
            #expect(try !load("history: {enabled: \(word)}\n").history.enabled, "\(word)")
        }
    }
}

@Suite("extreme ages against extreme modification times")
struct ExtremeAgeTests {
    @Test("clean --older-than, older-than rules and expire compare 36500d with any mtime without trapping")
    func ages() throws {
        let longest = Duration.seconds(36500 * 86400)
        let now: Int64 = 1_800_000_000_000_000_000
        for modified in [Int64.min, -1, 0, now, .max] {
            _ = LeftoverDecisions.isOlder(
                modifiedNanoseconds: modified, changedNanoseconds: modified, than: longest, nowNanoseconds: now)
            _ = LeftoverDecisions.isOlder(
                modifiedNanoseconds: modified, changedNanoseconds: modified, than: longest, nowNanoseconds: .min)
        }
        #expect(
            LeftoverDecisions.isOlder(
                modifiedNanoseconds: .min, changedNanoseconds: .min, than: longest, nowNanoseconds: now))
        #expect(
            !LeftoverDecisions.isOlder(
                modifiedNanoseconds: .max, changedNanoseconds: .max, than: .zero, nowNanoseconds: now))
        let selection = try CleanSelection.parse(
            categories: [Array("tmp".utf8)], kinds: [], paths: [], olderThan: Array("36500d".utf8), largerThan: nil)
        let path = Array("tmp/x".utf8)
        let classification = try #require(CleanClassifier.classify(path))
        for modified in [Int64.min, 0, .max] {
            let item = CleanItem(
                path: path, classification: classification, device: 1, inode: 2, allocatedBytes: 4096,
                apparentBytes: 1, modifiedNanoseconds: modified)
            #expect(selection.selects(item, nowNanoseconds: now) == (modified == .min))
            var candidate = CleanupCandidate(
                path: path, device: 1, inode: 2, allocatedBytes: 4096, apparentBytes: 1, modifiedNanoseconds: modified,
                lastOpenNanoseconds: nil, linkCount: 1, namesInDirectory: nil)
            candidate.modifiedNanoseconds = modified
            let expired = EvictionSelection.olderThan([candidate], age: longest, nowNanoseconds: now)
            _ = EvictionSelection.olderThan([candidate], age: longest, nowNanoseconds: .min)
            #expect(expired.isEmpty == (modified != .min))
        }
    }
}
