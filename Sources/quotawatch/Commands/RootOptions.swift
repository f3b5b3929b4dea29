import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// What the commands that take a ROOT share: its checks, its messages, its spellings.
enum RootOptions {
    /// A ROOT that does not exist or is not a directory is a usage error (64); one that is
    /// there but cannot be opened (no permission, say) is a runtime failure (1), as for du.
    static func report(_ error: RootError) -> ExitStatus {
        Console.failure("\(error).")
        switch error {
        case .notADirectory, .cannotOpen(_, .noSuchFileOrDirectory): return .usage
        case .cannotOpen: return .failure
        }
    }

    static func describe(_ warning: ScanWarning, root: CommandLineArgument) -> String {
        var path = root.bytes
        if !warning.path.isEmpty {
            if path.last != UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
            path += warning.path
        }
        let shown = TableRenderer.printable(EscapedName.string(path))
        switch warning.kind {
        case .unreadableDirectory:
            return Diagnostic.warning(
                "cannot read directory '\(shown)': \(warning.error); only its own size is counted") + "\n"
        case .unstatableEntry:
            return Diagnostic.warning("cannot access '\(shown)': \(warning.error); not counted") + "\n"
        }
    }

    /// ROOT as reports show it and as its socket and state directory are named: the canonical
    /// absolute path of the directory it opens (a symlink given as ROOT followed, `..` and
    /// symlinks on the way resolved, as `realpath` does), so that every spelling of one
    /// directory names one daemon. When it cannot be opened, the path made absolute.
    static func canonicalBytes(_ path: [UInt8]) -> [UInt8] {
        guard let opened = try? FileDescriptor.currentWorkingDirectory.openDirectory(path, followSymlinks: true) else {
            return absoluteBytes(path)
        }
        defer { opened.close() }
        return opened.canonicalPath ?? absoluteBytes(path)
    }

    /// A path made absolute, without resolving symlinks (like `pwd -L`).
    static func absolutePath(_ path: [UInt8]) -> String { EscapedName.string(absoluteBytes(path)) }

    static func absoluteBytes(_ path: [UInt8]) -> [UInt8] {
        if path.first == UInt8(ascii: "/") { return normalized(path) }
        let current = Array(FileManager.default.currentDirectoryPath.utf8)
        return normalized(current + [UInt8(ascii: "/")] + path)
    }

    /// Drops "." components, empty components and a trailing slash; ".." is kept, since
    /// resolving it without the file system could be wrong across symlinks.
    private static func normalized(_ path: [UInt8]) -> [UInt8] {
        let parts = path.split(separator: UInt8(ascii: "/")).filter { $0 != [UInt8(ascii: ".")] }
        return [UInt8(ascii: "/")] + Array(parts.joined(separator: [UInt8(ascii: "/")]))
    }
}

enum JSONOutput {
    static func encode(_ value: some Encodable) -> String { ContractJSON.encodedString(value) }
}
