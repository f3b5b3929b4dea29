/// One path a glob matches, to ask the other rules about what the glob names (does a
/// protect glob cover it, does a quota glob take it): `*` as one `x` (or nothing inside a
/// longer name), `?` as `x`, a class as its first character among common ones, `**` as no
/// component. Nil when no such plain sample matches (a class of rare characters): then
/// nothing is said about the glob.
extension PathGlob {
    package var samplePath: [UInt8]? {
        var components: [[UInt8]] = []
        for segment in segments {
            switch segment {
            case .literal(let name): components.append(name)
            case .anyDepth: continue
            case .pattern(let pattern):
                guard let name = pattern.sampleName else { return nil }
                components.append(name)
            }
        }
        let path = Array(components.joined(separator: [UInt8(ascii: "/")]))
        return matches(path) ? path : nil
    }
}

extension ComponentPattern {
    /// A name this pattern matches, or nil.
    var sampleName: [UInt8]? {
        var name: [UInt8] = []
        for token in tokens {
            switch token {
            case .literal(let unit):
                if unit >= CharacterUnits.strayByteBase {
                    name.append(UInt8(unit - CharacterUnits.strayByteBase))
                } else if let scalar = Unicode.Scalar(unit) {
                    name += Array(String(Character(scalar)).utf8)
                } else {
                    return nil
                }
            case .anyCharacter: name.append(UInt8(ascii: "x"))
            case .anyRun: continue
            case .characterClass(let set):
                guard let byte = Array("xa0_.-".utf8).first(where: { set.contains(UInt32($0)) }) else { return nil }
                name.append(byte)
            }
        }
        if name.isEmpty { name = Array("x".utf8) }
        return matches(name) ? name : nil
    }
}
