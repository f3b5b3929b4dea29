/// One path component of a glob with wildcards: `*` (any run of characters), `?` (one
/// character) and `[...]` classes, matched against one name.
///
/// A character is a valid UTF-8 scalar, or a single byte that is not part of valid UTF-8, so
/// `?` matches `é` (two bytes) as one character and a stray `\xff` byte as another. Literal
/// parts are compared byte for byte.
struct ComponentPattern: Sendable, Hashable {
    enum Token: Sendable, Hashable {
        case literal(UInt32)
        case anyCharacter
        case anyRun
        case characterClass(CharacterClass)
    }

    var tokens: [Token]

    /// The most tokens one component may have: a name (NAME_MAX, 255 bytes) matches no more
    /// characters than that, and `*`s between them make 511; beyond that it is a mistake or
    /// an attempt to make matching slow.
    static let maximumTokens = 511

    func matches(_ name: some Collection<UInt8>) -> Bool {
        let units = CharacterUnits.decode(name)
        // The classic single-backtrack wildcard match: on a mismatch, let the last `*` swallow
        // one more character. Linear in practice, quadratic at worst, no recursion.
        var token = 0
        var unit = 0
        var starToken = -1
        var starUnit = 0
        while unit < units.count {
            if token < tokens.count {
                switch tokens[token] {
                case .anyRun:
                    starToken = token
                    starUnit = unit
                    token += 1
                    continue
                case .anyCharacter:
                    token += 1
                    unit += 1
                    continue
                case .literal(let value) where value == units[unit]:
                    token += 1
                    unit += 1
                    continue
                case .characterClass(let set) where set.contains(units[unit]):
                    token += 1
                    unit += 1
                    continue
                default: break
                }
            }
            guard starToken >= 0 else { return false }
            token = starToken + 1
            starUnit += 1
            unit = starUnit
        }
        while token < tokens.count, tokens[token] == .anyRun { token += 1 }
        return token == tokens.count
    }
}

/// `[abc]`, `[a-z0-9]`, `[!x]` or `[^x]`: a set of characters, perhaps negated.
struct CharacterClass: Sendable, Hashable {
    var ranges: [ClosedRange<UInt32>]
    var negated: Bool

    func contains(_ unit: UInt32) -> Bool {
        ranges.contains { $0.contains(unit) } != negated
    }
}

/// Names as characters for wildcard matching: scalars of valid UTF-8, and every other byte
/// as `0x110000 + byte`, above any scalar, so a stray byte only ever equals itself.
enum CharacterUnits {
    static let strayByteBase: UInt32 = 0x11_0000

    static func decode(_ bytes: some Collection<UInt8>) -> [UInt32] {
        let array = Array(bytes)
        var units: [UInt32] = []
        units.reserveCapacity(array.count)
        var index = 0
        while index < array.count {
            let (scalar, length) = scalarAt(array, index)
            if length == 0 {
                units.append(strayByteBase + UInt32(array[index]))
                index += 1
            } else {
                units.append(scalar)
                index += length
            }
        }
        return units
    }

    /// The scalar at `index` and its byte length, or length 0 when the bytes there are not
    /// valid UTF-8 (overlong forms and surrogates included).
    static func scalarAt(_ bytes: [UInt8], _ index: Int) -> (UInt32, Int) {
        let lead = bytes[index]
        let length: Int
        let minimum: UInt32
        switch lead {
        case 0x00...0x7f: return (UInt32(lead), 1)
        case 0xc2...0xdf: (length, minimum) = (2, 0x80)
        case 0xe0...0xef: (length, minimum) = (3, 0x800)
        case 0xf0...0xf4: (length, minimum) = (4, 0x10000)
        default: return (0, 0)
        }
        guard index + length <= bytes.count else { return (0, 0) }
        var scalar = UInt32(lead) & (0xff >> (length + 1))
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xc0 == 0x80 else { return (0, 0) }
            scalar = (scalar << 6) | UInt32(byte & 0x3f)
        }
        guard scalar >= minimum, scalar <= 0x10ffff, !(0xd800...0xdfff).contains(scalar) else { return (0, 0) }
        return (scalar, length)
    }
}
