import QuotaWatchCore
import QuotaWatchEngine

/// A path in the fake: relative to the watched root, or, written with a leading "/out/", to a
/// detached area outside it that renames move things to and from.
struct FakePath: ExpressibleByStringLiteral, Hashable, CustomStringConvertible {
    var isOutside: Bool
    var components: [[UInt8]]

    init(isOutside: Bool = false, components: [[UInt8]]) {
        self.isOutside = isOutside
        self.components = components
    }

    init(stringLiteral text: String) {
        let outsidePrefix = "/out/"
        isOutside = text.hasPrefix(outsidePrefix)
        let relative = isOutside ? text.dropFirst(outsidePrefix.count) : Substring(text)
        components = relative.split(separator: "/").map { Array($0.utf8) }
    }

    var name: [UInt8] { components.last ?? [] }
    var parent: FakePath { FakePath(isOutside: isOutside, components: components.dropLast()) }

    func appending(_ name: [UInt8]) -> FakePath {
        FakePath(isOutside: isOutside, components: components + [name])
    }

    /// Printable ASCII as is, every other byte as \xNN, so a failing test names it exactly.
    var description: String {
        let parts = components.map { component in
            component.map { byte in
                (0x21...0x7e).contains(byte) && byte != UInt8(ascii: "\\")
                    ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: false)
            }.joined()
        }
        return (isOutside ? "/out/" : "") + parts.joined(separator: "/")
    }
}
