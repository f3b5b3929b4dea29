import QuotaWatchCore

/// The grammars option values are written in, one per kind of value, so every option of that
/// kind accepts the same spellings and refuses the rest in the same words.
extension ValueGrammar where Value == CommandLineArgument {
    /// The word as the kernel passed it: a path, which must not be re-spelled.
    static var word: Self { Self(completing: .files) { word, _ in word } }

    /// A path to a directory.
    static var directory: Self { Self(completing: .directories) { word, _ in word } }

    /// A word checked later against `names` (a category, a kind), which the completions offer.
    static func name(among names: [String]) -> Self { Self(completing: .words(names)) { word, _ in word } }
}

extension ValueGrammar where Value == String {
    static var text: Self { Self { word, option throws(InvalidValue) in try word.utf8Text(for: option) } }
}

extension ValueGrammar where Value == Int {
    /// A whole number within `range` (see ``NumberText``).
    static func wholeNumber(in range: ClosedRange<Int>) -> Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            do throws(NumberParseError) {
                return try NumberText.wholeNumber(text, in: range)
            } catch {
                let allowed = "expected a whole number from \(range.lowerBound) to \(range.upperBound)"
                throw InvalidValue(message: "Invalid value '\(text)' for '\(option)': \(error.reason); \(allowed)")
            }
        }
    }
}

extension ValueGrammar where Value == Double {
    /// A share within `allowed`, written as a percentage ("1%", "0.5%") (see ``NumberText``).
    static func share(in allowed: ClosedRange<Double>) -> Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            do throws(NumberParseError) {
                return try NumberText.share(text, in: allowed)
            } catch {
                throw InvalidValue(message: "Invalid value for '\(option)': \(error)")
            }
        }
    }
}

extension ValueGrammar where Value == Duration {
    /// A duration within `allowed`, such as 500ms or 7d (see ``TimeSpan``).
    static func timeSpan(in allowed: ClosedRange<Duration>) -> Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            do {
                return try TimeSpan(parsing: text, in: allowed).duration
            } catch {
                throw InvalidValue(message: "Invalid value for '\(option)': \(error)")
            }
        }
    }
}

extension ValueGrammar where Value == Duration {
    /// As ``timeSpan(in:)``, and a bare `0` too, for the options that 0 turns off.
    static func timeSpanOrZero(in allowed: ClosedRange<Duration>) -> Self {
        let timeSpan = Self.timeSpan(in: allowed)
        return Self { word, option throws(InvalidValue) in
            if try word.utf8Text(for: option) == "0" { return .zero }
            return try timeSpan.parse(word, option)
        }
    }
}

extension ValueGrammar where Value == UInt64 {
    /// A size within `allowed`, such as 100MB or 1.5GiB (see ``ByteCount``).
    static func byteCount(in allowed: ClosedRange<UInt64>) -> Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            do {
                return try ByteCount(parsing: text, in: allowed).bytes
            } catch {
                throw InvalidValue(message: "Invalid value for '\(option)': \(error)")
            }
        }
    }
}
