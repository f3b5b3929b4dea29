import Foundation

/// The one configuration every `Codable` shape of the JSON contract is written and read with:
/// keys sorted, no spaces, `/` not escaped. Scripts and the tests' golden fixtures
/// (Tests/Fixtures/json) hold these exact bytes, so no shape configures an encoder of its own.
///
/// Shapes whose fields vary by kind (event lines, check-config) are built as ``PolicyJSON``
/// values instead, whose writer sorts keys too but rounds numbers to three decimals; the two
/// are kept apart because their number formatting differs and the bytes must not change.
/// Names reach either only through ``EscapedName/string(_:)``, the one escaping of raw bytes.
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
