import Foundation

/// The one encoder of the JSON contract: keys sorted, no spaces, `/` not escaped. Every shape
/// is written and read with it, and scripts and the tests' golden fixtures
/// (Tests/Fixtures/json) hold its exact bytes, so no shape configures an encoder of its own.
///
/// Numbers are written as their field's type says: a `Double` as Swift prints it (the scan
/// and status shapes), a ``ContractNumber`` rounded to three decimals (event lines, the
/// cleaner lines); free-form values (``PolicyJSON``) go through it too. Names reach it only
/// through ``EscapedName/string(_:)``, the one escaping of raw bytes.
package enum ContractJSON {
    /// The value's JSON, one line. Every shape holds strings, integers, finite numbers,
    /// booleans and nulls only, which cannot fail to encode.
    package static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data())
    }

    /// ``encode(_:)`` as text.
    package static func encodedString(_ value: some Encodable) -> String {
        String(decoding: encode(value), as: UTF8.self)
    }

    /// Reads one document of the contract.
    package static func decode<Shape: Decodable>(
        _ shape: Shape.Type, from bytes: some Sequence<UInt8>
    ) throws
        -> Shape
    {
        try JSONDecoder().decode(shape, from: Data(bytes))
    }
}

extension KeyedDecodingContainer {
    /// Reads the line's kind (`event`) and throws unless it is `kind`: a line of another kind
    /// is not this shape, whatever fields the two share.
    package func expectKind(_ kind: String, forKey key: Key) throws {
        let found = try decode(String.self, forKey: key)
        guard found == kind else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "a '\(found)' line, not '\(kind)'")
        }
    }
}
