/// Classifies the files of one directory: what depends on the directory alone is worked out
/// once, so a directory of thousands of cache files costs one classification, not one each.
/// Always the same answer as ``CleanClassifier/classify(_:)`` of the file's path.
package struct CleanFileClassifier: Sendable {
    private let directory: [UInt8]
    /// Every file here gets this class (or none), whatever its name.
    private let shared: CleanClass?
    private let nameMatters: Bool

    /// For the directory at `directory` (relative to ROOT; empty for ROOT).
    package init(directory: [UInt8]) {
        self.directory = directory
        nameMatters = Self.nameMatters(directory)
        shared = nameMatters ? nil : CleanClassifier.classify(Self.join(directory, Array("x".utf8)))
    }

    /// Whether no file here can have a category: the walk may skip its files.
    package var classifiesNothing: Bool { !nameMatters && shared == nil }

    package func classify(name: some Collection<UInt8>) -> CleanClass? {
        nameMatters ? CleanClassifier.classify(Self.join(directory, name)) : shared
    }

    /// The directories where a file's name decides its category or group: downloads in `tmp`
    /// and in nsurlsessiond's download folders, dyld entries, temporary plists, and the
    /// kinds of the user's files.
    static func nameMatters(_ directory: [UInt8]) -> Bool {
        let components = directory.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
        switch components.count {
        case 1 where components[0] == "tmp": return true
        case 2 where components == ["tmp", "com.apple.dyld"] || components == ["Library", "Preferences"]: return true
        case 3 where components == ["Library", "Caches", "com.apple.dyld"]: return true
        case 5 where Array(components.prefix(4)) == ["Library", "Caches", "com.apple.nsurlsessiond", "Downloads"]:
            return true
        default:
            return components.first == "Documents" && !(components.count >= 2 && components[1] == "Inbox")
        }
    }

    private static func join(_ directory: [UInt8], _ name: some Collection<UInt8>) -> [UInt8] {
        directory.isEmpty ? Array(name) : directory + [UInt8(ascii: "/")] + name
    }
}
