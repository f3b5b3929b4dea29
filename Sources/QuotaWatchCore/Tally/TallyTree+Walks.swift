/// Walking the tree: children, subtrees, paths and depths, each by following the records'
/// parent and sibling links (no index is kept for them).
extension TallyTree {
    /// Directories directly below `directory`.
    package func subdirectories(of directory: DirectoryID) -> [DirectoryID] {
        var result: [DirectoryID] = []
        var child = directories[Int(directory.rawValue)].firstChild
        while child != noRecord {
            result.append(DirectoryID(rawValue: child))
            child = directories[Int(child)].nextSibling
        }
        return result
    }

    /// Non-directory names directly in `directory`.
    package func files(in directory: DirectoryID) -> [FileID] {
        var result: [FileID] = []
        var file = directories[Int(directory.rawValue)].firstFile
        while file != noRecord {
            result.append(FileID(rawValue: file))
            file = files[Int(file)].nextSibling
        }
        return result
    }

    /// `directory` and every directory below it, parents before children.
    package func subtree(of directory: DirectoryID) -> [DirectoryID] {
        var result = [directory]
        var index = 0
        while index < result.count {
            var child = directories[Int(result[index].rawValue)].firstChild
            while child != noRecord {
                result.append(DirectoryID(rawValue: child))
                child = directories[Int(child)].nextSibling
            }
            index += 1
        }
        return result
    }

    /// Path components from the root (exclusive) down to `directory`.
    package func components(of directory: DirectoryID) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var current = directory.rawValue
        while current != root.rawValue && current != noRecord {
            parts.append(name(of: DirectoryID(rawValue: current)))
            current = directories[Int(current)].parent
        }
        return parts.reversed()
    }

    /// The path relative to the root as raw bytes: "" for the root, "a/b" below it.
    package func relativePath(of directory: DirectoryID) -> [UInt8] {
        var path: [UInt8] = []
        for (index, part) in components(of: directory).enumerated() {
            if index > 0 { path.append(UInt8(ascii: "/")) }
            path.append(contentsOf: part)
        }
        return path
    }

    /// Depth below the root: 0 for the root.
    package func depth(of directory: DirectoryID) -> Int {
        var depth = 0
        var current = directories[Int(directory.rawValue)].parent
        while current != noRecord {
            depth += 1
            current = directories[Int(current)].parent
        }
        return depth
    }

    /// True when `directory` is `ancestor` or lies below it.
    package func isDescendant(_ directory: DirectoryID, of ancestor: DirectoryID) -> Bool {
        var current = directory.rawValue
        while current != noRecord {
            if current == ancestor.rawValue { return true }
            current = directories[Int(current)].parent
        }
        return false
    }
}
