/// The kinds of the user's own files under `Documents/`, by extension.
package enum UserFileKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case video
    case images
    case packages
    case pdf
    case office
    case archives
    /// Anything else under `Documents/` (notes, audio, databases): listed, deleted only by name.
    case other

    package static var names: [String] { allCases.map(\.rawValue) }

    /// Lowercased ASCII extensions of each kind.
    static let extensions: [UserFileKind: Set<String>] = [
        .video: ["mp4", "m4v", "mov", "avi", "mkv", "webm", "3gp", "mpg", "mpeg", "wmv", "flv"],
        .images: ["jpg", "jpeg", "png", "heic", "heif", "gif", "webp", "tif", "tiff", "bmp", "dng", "raw", "svg"],
        .packages: ["ipa", "apk", "aab", "dmg", "deb", "rpm", "pkg", "msi"],
        .pdf: ["pdf"],
        .office: [
            "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "rtf", "pages", "numbers", "key",
        ],
        .archives: ["zip", "rar", "7z", "tar", "gz", "tgz", "bz2", "xz", "zst"],
    ]

    /// The kind of a file named `name` (raw bytes): its extension after the last dot, ASCII
    /// letters folded to lower case; a name that is not UTF-8 still has an extension.
    package static func of(name: some Collection<UInt8>) -> UserFileKind {
        let bytes = Array(name)
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0, dot < bytes.count - 1 else { return .other }
        let lowered = bytes[(dot + 1)...].map { $0 >= 0x41 && $0 <= 0x5a ? $0 | 0x20 : $0 }
        let text = String(decoding: lowered, as: UTF8.self)
        for kind in allCases where extensions[kind]?.contains(text) == true { return kind }
        return .other
    }

    package static func < (left: UserFileKind, right: UserFileKind) -> Bool {
        allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
    }
}
