import QuotaWatchCore

/// A size or a share, as thresholds of free space are written: "5GB" or "10%".
package enum SpaceThresholdText {
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package var description: String
    }

    package static func parse(_ text: String) throws(ParseError) -> SpaceThreshold {
        if text.hasSuffix("%") {
            do {
                return .share(try ShareText.parse(text))
            } catch {
                throw ParseError(description: error.description)
            }
        }
        do {
            return .bytes(try ByteCount(parsing: text).bytes)
        } catch {
            throw ParseError(description: error.description + ", or a share such as 10%")
        }
    }
}
