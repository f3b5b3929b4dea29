/// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every
/// line must be a `# HELP`, a `# TYPE`, another comment, an empty line or a sample, and a
/// sample must have a valid name, well-formed labels with only the format's escapes (`\\`,
/// `\"`, `\n`) and a number Prometheus reads. It also checks what a scraper relies on: a
/// family's TYPE and HELP at most once and before its samples, a family's samples together,
/// no series twice.
public struct PrometheusExposition: Sendable {
    public struct Sample: Sendable, Equatable {
        public let name: String
        /// Label values unescaped.
        public let labels: [String: String]
        public let value: Double
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let text: String
        public let reason: String
        public var description: String { "line \(line) '\(text)': \(reason)" }
    }

    public private(set) var samples: [Sample] = []
    /// TYPE of each family that declared one.
    public private(set) var types: [String: String] = [:]
    public private(set) var helps: [String: String] = [:]

    public init(_ text: String) throws {
        var finished: Set<String> = []
        var current: String?
        var series: Set<String> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            func fail(_ reason: String) -> ParseError { ParseError(line: number, text: String(line), reason: reason) }
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, parts[0] == "#", parts[1] == "HELP" || parts[1] == "TYPE" else { continue }
                let name = String(parts[2])
                guard Self.isMetricName(name) else { throw fail("bad metric name '\(name)'") }
                let rest = parts.count > 3 ? String(parts[3]) : ""
                guard !finished.contains(name), current != name else {
                    throw fail("\(parts[1]) after the samples of \(name)")
                }
                if parts[1] == "TYPE" {
                    guard types[name] == nil else { throw fail("second TYPE for \(name)") }
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(rest) else {
                        throw fail("unknown type '\(rest)'")
                    }
                    types[name] = rest
                } else {
                    guard helps[name] == nil else { throw fail("second HELP for \(name)") }
                    do {
                        helps[name] = try Self.unescape(rest, quotes: false)
                    } catch {
                        throw fail(error.text)
                    }
                }
                continue
            }
            let sample: Sample
            do {
                sample = try Self.sample(line)
            } catch {
                throw fail(error.text)
            }
            if sample.name != current {
                if let current { finished.insert(current) }
                guard !finished.contains(sample.name) else { throw fail("the samples of \(sample.name) are split") }
                current = sample.name
            }
            let key =
                sample.name + "{"
                + sample.labels.keys.sorted().map { "\($0)=\(sample.labels[$0]!)" }
                .joined(separator: "\u{0}") + "}"
            guard series.insert(key).inserted else { throw fail("the same series twice") }
            samples.append(sample)
        }
    }

    /// The samples named `name`.
    public func samples(_ name: String) -> [Sample] { samples.filter { $0.name == name } }

    /// The value of the one sample named `name` whose labels include `labels`; nil if none.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?
            .value
    }

    // MARK: Lines

    private struct Reason: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    private static func sample(_ line: Substring) throws(Reason) -> Sample {
        var rest = line[...]
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard isMetricName(name) else { throw Reason("bad metric name '\(name)'") }
        rest = rest[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let equals = rest.firstIndex(of: "=") else { throw Reason("a label without '='") }
                let label = String(rest[..<equals])
                guard isLabelName(label) else { throw Reason("bad label name '\(label)'") }
                guard labels[label] == nil else { throw Reason("label \(label) twice") }
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { throw Reason("label \(label)'s value is not quoted") }
                rest = rest.dropFirst()
                var raw = ""
                var escaped = false
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        raw.append("\\")
                        raw.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        closed = true
                        break
                    } else {
                        raw.append(character)
                    }
                }
                guard closed else { throw Reason("label \(label)'s value never ends") }
                labels[label] = try unescape(raw, quotes: true)
                if rest.first == "," {
                    rest = rest.dropFirst()
                } else if rest.first != "}" {
                    throw Reason("expected ',' or '}' after label \(label)")
                }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw Reason("no space before the value") }
        let fields = rest.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 1 || fields.count == 2 else { throw Reason("expected a value and maybe a timestamp") }
        guard let value = number(fields[0]) else { throw Reason("'\(fields[0])' is not a number") }
        if fields.count == 2, Int64(fields[1]) == nil { throw Reason("'\(fields[1])' is not a timestamp") }
        return Sample(name: name, labels: labels, value: value)
    }

    private static func number(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            // Swift reads "inf" and "nan" too; the format does not.
            guard text.allSatisfy({ "0123456789.eE+-".contains($0) }) else { return nil }
            return Double(text)
        }
    }

    /// `\\` and `\n` (and `\"` where `quotes`) back to characters; any other escape is an error.
    private static func unescape(_ text: String, quotes: Bool) throws(Reason) -> String {
        var output = ""
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                output.append(character)
                continue
            }
            switch iterator.next() {
            case "\\": output.append("\\")
            case "n": output.append("\n")
            case "\"" where quotes: output.append("\"")
            case let other: throw Reason("the escape '\\\(other.map(String.init) ?? "")' is not in the format")
            }
        }
        return output
    }

    private static func isMetricName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII,
            first.properties.isAlphabetic || first == "_" || first == ":"
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == ":")
        }
    }

    private static func isLabelName(_ name: String) -> Bool {
        isMetricName(name) && !name.contains(":")
    }
}
