/// Which directories a report shows: a subtree of the root, down to a depth, optionally only
/// its largest directories. Every part is optional; the default is the whole tree.
package struct TreeSelection: Hashable, Sendable {
    /// The subtree's directory as raw bytes relative to the root, components joined by "/";
    /// empty for the root itself. Never starts or ends with "/", never holds "." or "..".
    package var subtree: [UInt8]
    /// Levels shown below the subtree's directory: 0 shows it alone; nil shows them all.
    package var depth: Int?
    /// Only the `top` directories with the most allocated bytes; nil keeps them all.
    package var top: Int?
    /// Also the `files` largest files (non-directories) directly in the subtree's directory,
    /// as a live view lists them beside its subdirectories; nil asks for none. Costs one pass
    /// over that directory's own entries, never the files below it.
    package var files: Int?

    package init(subtree: [UInt8] = [], depth: Int? = nil, top: Int? = nil, files: Int? = nil) {
        self.subtree = subtree
        self.depth = depth
        self.top = top
        self.files = files
    }

    /// The subtree's path components.
    package var components: [ArraySlice<UInt8>] {
        subtree.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
    }

    /// Reads a path relative to the root the way reports write them (escaped as
    /// ``EscapedName`` escapes names): "." or "" is the root; "a/b", "./a/b/" and "a//b" are
    /// the same subtree. An absolute path, a ".." or a malformed escape is refused with a
    /// message that says so.
    package static func subtree(fromEscaped text: String) -> Result<[UInt8], SelectionError> {
        guard let bytes = EscapedName.bytes(text) else {
            return .failure(
                SelectionError(
                    "path '\(text)' has a backslash that starts neither '\\\\' nor '\\xNN'; "
                        + "write names as status --json shows them"))
        }
        if bytes.first == UInt8(ascii: "/") {
            return .failure(
                SelectionError("path '\(text)' is absolute; give it relative to the root, such as 'Library'"))
        }
        var components: [ArraySlice<UInt8>] = []
        for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if component.elementsEqual([UInt8(ascii: ".")]) { continue }
            if component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                return .failure(
                    SelectionError("path '\(text)' leaves its directory with '..'; give a path below the root"))
            }
            components.append(component)
        }
        return .success(Array(components.joined(separator: [UInt8(ascii: "/")])))
    }
}

/// Why a selection cannot be read.
package struct SelectionError: Error, Hashable, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
