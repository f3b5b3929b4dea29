/// Turns the bytes of a glob into segments, resolving escapes and checking the syntax.
enum GlobCompiler {
    static func compile(_ bytes: [UInt8], text: String) throws(GlobError) -> [PathGlob.Segment] {
        func fail(_ reason: String) -> GlobError { GlobError(glob: text, reason: reason) }
        if bytes.isEmpty { throw fail("it is empty; write '.' for ROOT itself") }
        if bytes.first == UInt8(ascii: "/") { throw fail("it starts with '/', but globs are relative to ROOT") }
        var components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if components.last?.isEmpty == true, components.count > 1 { components.removeLast() }
        if components.count == 1, components[0].isEmpty { return [] }
        var segments: [PathGlob.Segment] = []
        for (index, component) in components.enumerated() {
            if component.isEmpty { throw fail("it has an empty component ('//')") }
            if component.elementsEqual(".".utf8) {
                if index == 0 { continue }
                throw fail("'.' may only stand first")
            }
            if component.elementsEqual("..".utf8) { throw fail("'..' would leave the directory it names") }
            if component.elementsEqual("**".utf8) {
                if segments.last != .anyDepth { segments.append(.anyDepth) }
                continue
            }
            segments.append(try compileComponent(Array(component), fail: fail))
        }
        if segments.count > PathGlob.maximumComponents {
            throw fail("it has \(segments.count) components, more than \(PathGlob.maximumComponents)")
        }
        return segments
    }

    private static func compileComponent(
        _ bytes: [UInt8], fail: (String) -> GlobError
    ) throws(GlobError) -> PathGlob.Segment {
        var tokens: [ComponentPattern.Token] = []
        var literalRun: [UInt8] = []
        var hasWildcard = false
        var allLiteral: [UInt8] = []
        func flushLiteral() {
            tokens += CharacterUnits.decode(literalRun).map { .literal($0) }
            literalRun.removeAll()
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\\"):
                let (value, length) = try escape(bytes, index, fail: fail)
                literalRun.append(value)
                allLiteral.append(value)
                index += length
            case UInt8(ascii: "*"):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                    throw fail("'**' must be a whole component, as in 'a/**/b'")
                }
                flushLiteral()
                tokens.append(.anyRun)
                hasWildcard = true
                index += 1
            case UInt8(ascii: "?"):
                flushLiteral()
                tokens.append(.anyCharacter)
                hasWildcard = true
                index += 1
            case UInt8(ascii: "["):
                flushLiteral()
                let (set, length) = try characterClass(bytes, index, fail: fail)
                tokens.append(.characterClass(set))
                hasWildcard = true
                index += length
            case UInt8(ascii: "]"):
                throw fail("']' without a matching '[' (write \\] for the character itself)")
            default:
                literalRun.append(byte)
                allLiteral.append(byte)
                index += 1
            }
        }
        if !hasWildcard { return .literal(allLiteral) }
        flushLiteral()
        // Matching costs tokens × characters at worst (`*a*a*a…b` against `aaaa…`); a name has at
        // most 255 bytes, so a pattern needing more characters than that can never match.
        if tokens.count > ComponentPattern.maximumTokens {
            throw fail(
                "a component has \(tokens.count) characters and wildcards, more than "
                    + "\(ComponentPattern.maximumTokens): a file name has at most 255 bytes")
        }
        return .pattern(ComponentPattern(tokens: tokens))
    }

    /// The byte an escape at `index` stands for, and the escape's length.
    private static func escape(
        _ bytes: [UInt8], _ index: Int, fail: (String) -> GlobError
    ) throws(GlobError) -> (UInt8, Int) {
        guard index + 1 < bytes.count else { throw fail("it ends with a lone backslash") }
        let next = bytes[index + 1]
        switch next {
        case UInt8(ascii: "x"):
            guard index + 3 < bytes.count,
                let value = UInt8(String(decoding: bytes[index + 2...index + 3], as: UTF8.self), radix: 16)
            else { throw fail("'\\x' must be followed by two hex digits") }
            return (value, 4)
        case UInt8(ascii: "\\"), UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["), UInt8(ascii: "]"),
            UInt8(ascii: "-"), UInt8(ascii: "!"), UInt8(ascii: "^"):
            return (next, 2)
        default:
            throw fail("unknown escape '\\\(String(decoding: [next], as: UTF8.self))'")
        }
    }

    /// The class starting at the `[` at `index`, and its length through the closing `]`.
    private static func characterClass(
        _ bytes: [UInt8], _ start: Int, fail: (String) -> GlobError
    ) throws(GlobError) -> (CharacterClass, Int) {
        var index = start + 1
        var negated = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "!") || bytes[index] == UInt8(ascii: "^") {
            negated = true
            index += 1
        }
        // Members as raw bytes first (escapes resolved), then decoded into characters, so
        // `[é]` is one member and `[\xff]` the stray byte ff.
        var members: [(unit: UInt32, isRangeDash: Bool)] = []
        var raw: [UInt8] = []
        var first = true
        func flushRaw() {
            members += CharacterUnits.decode(raw).map { ($0, false) }
            raw.removeAll()
        }
        while true {
            guard index < bytes.count else { throw fail("'[' without a closing ']'") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "]"), !first { break }
            first = false
            if byte == UInt8(ascii: "\\") {
                let (value, length) = try escape(bytes, index, fail: fail)
                raw.append(value)
                index += length
            } else if byte == UInt8(ascii: "-") {
                flushRaw()
                members.append((UInt32(byte), true))
                index += 1
            } else {
                raw.append(byte)
                index += 1
            }
        }
        flushRaw()
        var ranges: [ClosedRange<UInt32>] = []
        var position = 0
        while position < members.count {
            let member = members[position]
            if position + 2 < members.count, members[position + 1].isRangeDash, !member.isRangeDash {
                let upper = members[position + 2].unit
                guard member.unit <= upper else { throw fail("a class range runs backwards") }
                ranges.append(member.unit...upper)
                position += 3
            } else {
                ranges.append(member.unit...member.unit)
                position += 1
            }
        }
        return (CharacterClass(ranges: ranges, negated: negated), index + 1 - start)
    }
}
