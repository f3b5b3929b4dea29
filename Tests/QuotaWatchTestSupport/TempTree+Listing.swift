import Foundation

extension TempTree {
    /// Every name below `path`, sorted, with each file's size: a listing that changes if
    /// anything inside is removed, added or rewritten (what a deletion test compares before
    /// and after, for the places it must not touch).
    public static func namesAndSizes(below path: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var names: [String] = []
        while let name = enumerator?.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
            names.append("\(name) \(attributes?[.size] ?? "-")")
        }
        return names.sorted()
    }
}
