/// A number of the event stream and the cleaner lines (seconds, rates): rounded to three
/// decimals, and written as an integer when it is one (`1`, not `1.0`); a value that is not
/// finite is written as null. The documented format of docs/json.md's event lines; the scan
/// and status shapes hold their `Double`s as Swift prints them instead, which their golden
/// fixtures pin. Both go through the one encoder (``ContractJSON``): this is a field's type,
/// not a second writer.
package struct ContractNumber: Codable, Sendable, Hashable {
    package var value: Double

    package init(_ value: Double) { self.value = value }

    /// The value as the contract writes it: nil when it is not finite.
    package var rounded: Double? {
        guard value.isFinite else { return nil }
        return (value * 1000).rounded() / 1000
    }

    /// The written text, for the tables that show the same numbers as the JSON.
    package var text: String {
        guard let rounded else { return "null" }
        if let integer = Self.integer(rounded) { return String(integer) }
        return String(rounded)
    }

    private static func integer(_ rounded: Double) -> Int64? {
        rounded == rounded.rounded() && abs(rounded) < 1e15 ? Int64(rounded) : nil
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        guard let rounded else { return try container.encodeNil() }
        if let integer = Self.integer(rounded) { try container.encode(integer) } else { try container.encode(rounded) }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = container.decodeNil() ? .nan : try container.decode(Double.self)
    }
}
