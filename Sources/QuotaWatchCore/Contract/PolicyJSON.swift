/// A JSON value with a stable encoding: object keys sorted, no spaces, numbers as integers
/// or with at most three decimals: the contract's second encoder (see ``ContractJSON``), for
/// shapes whose fields vary by kind. Events and check-config's `--json` use it.
package enum PolicyJSON: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case unsigned(UInt64)
    case number(Double)
    case bool(Bool)
    case null
    case array([PolicyJSON])
    case object([String: PolicyJSON])

    package var encoded: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .string(let text): Self.writeString(text, to: &output)
        case .integer(let value): output += String(value)
        case .unsigned(let value): output += String(value)
        case .number(let value): output += Self.numberText(value)
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let fields):
            output += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                fields[key]!.write(to: &output)
            }
            output += "}"
        }
    }

    package static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(rounded)
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        // Only ASCII is escaped: a string with no quote, backslash or control byte (nearly
        // every path an audit record names) goes in whole, not a scalar at a time. This was
        // a quarter of an eviction's CPU, one intent and one outcome per name.
        guard text.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) else {
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
