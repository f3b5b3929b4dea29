/// How the files of one directory are named and sized.
struct FileRecipe: Sendable {
    enum Naming: Sendable {
        /// 16 hex digits and one of the extensions: `3f9a0c1d2e4b5a69.jpg`.
        case hashed(extensions: [String])
        /// 40 upper-case hex digits, as WebKit's network cache names its records.
        case webKitRecord
        /// `<prefix><number><suffix>`, numbers zero padded to `width` and counting up from 0,
        /// or from a random start (map tiles, stream segments).
        case numbered(prefix: String, width: Int, suffix: String, randomStart: Bool)
        /// An upper-case UUID and a suffix.
        case uuid(suffix: String)
        /// `CFNetworkDownload_AbC123.tmp`, as NSURLSession leaves in tmp/.
        case download
        /// Names a person would give: `IMG_0042.HEIC`, `Export 7.pdf`, `Café menu 3.pdf`.
        case document
    }

    var naming: Naming
    var sizes: SizeProfile
    /// The share of files that are left sparse: only a head is written and the rest is a
    /// hole, like an interrupted download. Their allocation is well below their size.
    var sparseShare: Double = 0

    /// Calls `body` with each of the `count` files, in an order fixed by `seed`.
    func forEachFile<E: Error>(count: Int, seed: UInt64, _ body: (FileSpec) throws(E) -> Void) throws(E) {
        var random = SplitMix64(seed: seed)
        let nameSalt = random.next()
        let numberBase = random.integer(in: 0...9000)
        var usedDownloadNames = Set<String>()
        for index in 0..<count {
            let name: String
            switch naming {
            case .download:
                name = Self.downloadName(&random, avoiding: &usedDownloadNames)
            default:
                name = fileName(index: index, salt: nameSalt, numberBase: numberBase, &random)
            }
            let apparentSize = sizes.sample(&random)
            var writtenSize = apparentSize
            if sparseShare > 0, random.chance(sparseShare) {
                let head = Double(apparentSize) * (0.05 + 0.55 * random.unit())
                writtenSize = Int(head) / FileSpec.blockSize * FileSpec.blockSize
            }
            try body(FileSpec(name: name, apparentSize: apparentSize, writtenSize: writtenSize))
        }
    }

    private func fileName(index: Int, salt: UInt64, numberBase: Int, _ random: inout SplitMix64) -> String {
        // Mixing a distinct index gives a distinct value, so names in a directory never collide.
        let unique = SplitMix64.mix(salt &+ UInt64(index))
        switch naming {
        case .hashed(let extensions):
            return Hex.digits(unique, count: 16) + "." + extensions[random.below(extensions.count)]
        case .webKitRecord:
            let tail = Hex.digits(random.next(), count: 16) + Hex.digits(random.next(), count: 8)
            return (Hex.digits(unique, count: 16) + tail).uppercased()
        case .numbered(let prefix, let width, let suffix, let randomStart):
            return prefix + Digits.padded((randomStart ? numberBase : 0) + index, width: width) + suffix
        case .uuid(let suffix):
            return Hex.uuid(unique, random.next()) + suffix
        case .document:
            return Self.documentName(index: index, &random)
        case .download:
            preconditionFailure("download names are drawn apart, to skip repeats")
        }
    }

    private static let documentTemplates: [(prefix: String, suffix: String)] = [
        ("IMG_", ".HEIC"), ("IMG_", ".JPG"), ("Export ", ".pdf"), ("Notes ", ".txt"),
        ("Scan ", ".pdf"), ("Recording ", ".m4a"), ("Café menu ", ".pdf"), ("Budget ", ".numbers"),
    ]

    private static func documentName(index: Int, _ random: inout SplitMix64) -> String {
        // The index is in every name, so two files never share one.
        let template = documentTemplates[random.below(documentTemplates.count)]
        if template.prefix == "IMG_" {
            return template.prefix + Digits.padded(index + 1, width: 4) + template.suffix
        }
        return template.prefix + String(index + 1) + template.suffix
    }

    private static let downloadAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    private static func downloadName(_ random: inout SplitMix64, avoiding used: inout Set<String>) -> String {
        while true {
            var suffix = ""
            for _ in 0..<6 {
                suffix.append(downloadAlphabet[random.below(downloadAlphabet.count)])
            }
            let name = "CFNetworkDownload_" + suffix + ".tmp"
            if used.insert(name).inserted {
                return name
            }
        }
    }
}

enum Hex {
    private static let digitCharacters = Array("0123456789abcdef".utf8)

    /// The low `count` hex digits of `value`, lower case, zero padded.
    static func digits(_ value: UInt64, count: Int) -> String {
        precondition((1...16).contains(count), "a UInt64 has 16 hex digits")
        var bytes = [UInt8](repeating: 0, count: count)
        var rest = value
        for position in stride(from: count - 1, through: 0, by: -1) {
            bytes[position] = digitCharacters[Int(rest & 0xF)]
            rest >>= 4
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `8-4-4-4-12` upper-case hex from 128 bits.
    static func uuid(_ high: UInt64, _ low: UInt64) -> String {
        let text = digits(high, count: 16) + digits(low, count: 16)
        let characters = Array(text.uppercased())
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32]
        return groups.map { String(characters[$0]) }.joined(separator: "-")
    }
}

enum Digits {
    /// `value` in decimal, zero padded to at least `width` digits.
    static func padded(_ value: Int, width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
