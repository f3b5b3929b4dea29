import QuotaWatchCore
import QuotaWatchPolicy

/// A node with the key path that led to it: every typed read fails with a ``ConfigError``
/// that points at the node.
struct Field {
    var node: YAMLNode
    var key: String
    var file: String

    func error(_ message: String) -> ConfigError {
        ConfigError(file: file, line: node.mark.line, column: node.mark.column, key: key, message: message)
    }

    func child(_ node: YAMLNode, key: String) -> Field { Field(node: node, key: key, file: file) }

    /// The node as a mapping whose keys are all among `allowed`.
    func mapping(allowed: [String]) throws(ConfigError) -> Mapping {
        guard case .mapping(let pairs) = node.content else {
            if node.isNull { return Mapping(field: self, values: [:]) }
            throw error(
                "expected a mapping with keys " + allowed.joined(separator: ", ") + ", found \(node.kindDescription)")
        }
        var values: [String: Field] = [:]
        for pair in pairs {
            let keyField = child(pair.key, key: key)
            guard case .scalar(let name, _) = pair.key.content else { throw keyField.error("a key must be plain text") }
            let path = key.isEmpty ? name : key + "." + name
            guard allowed.contains(name) else {
                var message = "unknown key '\(name)'"
                if let suggestion = Spelling.suggestion(for: name, among: allowed) {
                    message += "; did you mean '\(suggestion)'?"
                }
                message += " Allowed here: " + allowed.joined(separator: ", ")
                throw Field(node: pair.key, key: path, file: file).error(message)
            }
            if values[name] != nil {
                throw Field(node: pair.key, key: path, file: file).error("'\(name)' is given twice")
            }
            values[name] = child(pair.value, key: path)
        }
        return Mapping(field: self, values: values)
    }

    /// The node as a list; a single value is a list of one when `singleAllowed`.
    func list(singleAllowed: Bool = false) throws(ConfigError) -> [Field] {
        switch node.content {
        case .sequence(let items):
            return items.enumerated().map { child($0.element, key: "\(key)[\($0.offset)]") }
        case .scalar where node.isNull:
            return []
        case .scalar where singleAllowed:
            return [self]
        default:
            throw error("expected a list, found \(node.kindDescription)")
        }
    }

    func text(expecting what: String) throws(ConfigError) -> String {
        guard case .scalar(let text, _) = node.content, !node.isNull else {
            throw error("expected \(what), found \(node.kindDescription)")
        }
        return text
    }

    /// Every typed value goes through the one parser of its kind (QuotaWatchCore's units),
    /// which `run`'s options use too, with the key's range from ``ValueRanges``.
    func size(in allowed: ClosedRange<UInt64> = ByteCount.anySize) throws(ConfigError) -> UInt64 {
        let text = try text(expecting: "a size such as 200MB")
        do {
            return try ByteCount(parsing: text, in: allowed).bytes
        } catch {
            throw self.error(error.description)
        }
    }

    func duration(in allowed: ClosedRange<Duration>) throws(ConfigError) -> Duration {
        let text = try text(expecting: "a duration such as 90s, 15m or 2h")
        do {
            return try TimeSpan(parsing: text, in: allowed).duration
        } catch {
            throw self.error(error.description)
        }
    }

    /// A fraction from 0 to 1, written as a number ("0.8") or a share ("80%").
    func ratio(in allowed: ClosedRange<Double> = ValueRanges.ratio) throws(ConfigError) -> Double {
        let text = try text(expecting: "a ratio such as 0.8 or 80%")
        do {
            return try NumberText.ratio(text, in: allowed)
        } catch {
            throw self.error(error.description)
        }
    }

    func number(in allowed: ClosedRange<Double>) throws(ConfigError) -> Double {
        let text = try text(expecting: "a number")
        do {
            return try NumberText.number(text, in: allowed)
        } catch {
            throw self.error(error.description)
        }
    }

    func integer(in allowed: ClosedRange<Int>) throws(ConfigError) -> Int {
        let text = try text(expecting: "a whole number")
        do {
            return try NumberText.wholeNumber(text, in: allowed)
        } catch {
            throw self.error(error.description)
        }
    }

    /// YAML 1.1's words for true and false, as libyaml leaves them to the reader.
    static let trueWords: Set<String> = ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"]
    static let falseWords: Set<String> = ["false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"]

    func bool() throws(ConfigError) -> Bool {
        let text = try text(expecting: "true or false")
        if Self.trueWords.contains(text) { return true }
        if Self.falseWords.contains(text) { return false }
        throw error("invalid value '\(text)'; write true or false (or yes/no, on/off)")
    }

    func choice(_ allowed: [String]) throws(ConfigError) -> String {
        let text = try text(expecting: "one of " + allowed.joined(separator: ", "))
        guard allowed.contains(text) else {
            throw error("invalid value '\(text)'; write one of " + allowed.joined(separator: ", "))
        }
        return text
    }

    func glob() throws(ConfigError) -> PathGlob {
        let text = try text(expecting: "a glob relative to ROOT, such as 'Library/Caches/*'")
        do {
            return try PathGlob(text)
        } catch {
            throw self.error(error.description)
        }
    }

    /// Escaped path text (as QuotaWatch prints paths) back to bytes.
    func path() throws(ConfigError) -> [UInt8] {
        let text = try text(expecting: "a path relative to ROOT")
        guard let bytes = EscapedName.bytes(text) else {
            throw error("invalid path '\(text)'; a backslash starts \\xNN (a raw byte) or \\\\ (a backslash)")
        }
        return bytes
    }

    /// A free-space threshold list: one size or share, or a list of them.
    func spaceThresholds() throws(ConfigError) -> [SpaceThreshold] {
        var thresholds: [SpaceThreshold] = []
        for item in try list(singleAllowed: true) {
            let text = try item.text(expecting: "a size such as 5GB or a share such as 10%")
            do {
                thresholds.append(try SpaceThresholdText.parse(text))
            } catch {
                throw item.error(error.description)
            }
        }
        if thresholds.isEmpty { throw error("expected at least one size or share, such as [10%, 5GB]") }
        return thresholds
    }
}

/// A mapping's values by key.
struct Mapping {
    var field: Field
    var values: [String: Field]

    subscript(key: String) -> Field? {
        guard let value = values[key], !value.node.isNull else { return nil }
        return value
    }

    func required(_ key: String, what: String) throws(ConfigError) -> Field {
        guard let value = self[key] else { throw field.error("'\(key)' is missing: \(what)") }
        return value
    }
}
