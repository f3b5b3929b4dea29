/// A free-form JSON value, written by the one encoder (``ContractJSON``): keys sorted,
/// numbers as ``ContractNumber``. What a shape of the contract holds where its content is
/// not the contract's to fix: the settings `check-config --json` echoes and the clean page's
/// listing, whose fields follow the config; and the fields of an event line of a kind this
/// build does not know (a newer daemon's), kept as they came so that nothing is lost.
package enum PolicyJSON: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case unsigned(UInt64)
    case number(Double)
    case bool(Bool)
    case null
    case array([PolicyJSON])
    case object([String: PolicyJSON])

    /// The value's JSON, one line, as ``ContractJSON`` writes it.
    package var encoded: String { ContractJSON.encodedString(self) }

    /// A shape of the contract as a free-form value, for a writer not yet made of shapes.
    package init(encoding value: some Encodable) {
        self = (try? ContractJSON.decode(PolicyJSON.self, from: ContractJSON.encode(value))) ?? .null
    }

    /// A number as the contract writes it (``ContractNumber/text``), for tables.
    package static func numberText(_ value: Double) -> String { ContractNumber(value).text }
}

extension PolicyJSON: Codable {
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .integer(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .unsigned(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value): try ContractNumber(value).encode(to: encoder)
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let fields):
            var container = encoder.container(keyedBy: ContractKey.self)
            for (key, value) in fields { try container.encode(value, forKey: ContractKey(key)) }
        }
    }

    package init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: ContractKey.self) {
            var fields: [String: PolicyJSON] = [:]
            for key in container.allKeys {
                fields[key.stringValue] = try container.decode(PolicyJSON.self, forKey: key)
            }
            self = .object(fields)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var values: [PolicyJSON] = []
            while !container.isAtEnd { values.append(try container.decode(PolicyJSON.self)) }
            self = .array(values)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .unsigned(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}

/// A key named at run time: a free-form object's, or a field an enum's cases share.
package struct ContractKey: CodingKey, Hashable, Sendable {
    package var stringValue: String
    package var intValue: Int? { nil }

    package init(_ name: String) { stringValue = name }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}
