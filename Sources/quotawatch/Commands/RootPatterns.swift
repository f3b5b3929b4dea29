import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// A config's `roots:` made into directories: each pattern's components walked from `/`, a
/// component with `*`, `?` or `[...]` matched against the names listed there (as a quota's
/// glob matches one name: `*` never crosses `/`; as in the shell, a hidden name only by a
/// pattern that starts with a dot). Only real directories match: a symlink is never followed into a root.
enum RootPatterns {
    struct Match: Equatable {
        var root: [UInt8]
        var config: [UInt8]?
    }

    /// Every directory the patterns match now, each once (the first pattern that names it
    /// wins), sorted by path within each pattern.
    static func expand(_ patterns: [RootPattern]) -> [Match] {
        var seen: Set<[UInt8]> = []
        var matches: [Match] = []
        for pattern in patterns {
            for root in directories(matching: pattern.pattern) where seen.insert(root).inserted {
                matches.append(Match(root: root, config: pattern.config))
            }
        }
        return matches
    }

    /// The directories `pattern` (absolute) matches.
    static func directories(matching pattern: [UInt8]) -> [[UInt8]] {
        let slash = UInt8(ascii: "/")
        var frontier: [[UInt8]] = [[slash]]
        for component in pattern.split(separator: slash) {
            let isGlob = RootPattern.isGlob(component)
            var next: [[UInt8]] = []
            for parent in frontier {
                let names: [[UInt8]]
                if isGlob {
                    guard let glob = try? PathGlob(bytes: Array(component)) else { return [] }
                    // As the shell: a hidden name only for a pattern that starts with a dot.
                    let hiddenToo = component.first == UInt8(ascii: ".")
                    names = listed(parent).filter { (hiddenToo || $0.first != UInt8(ascii: ".")) && glob.matches($0) }
                        .sorted { $0.lexicographicallyPrecedes($1) }
                } else {
                    names = [Array(component)]
                }
                // A name the user wrote may be a symlink (/home on some systems); a matched one may not.
                for name in names where isDirectory(name, in: parent, following: !isGlob) {
                    next.append(parent == [slash] ? parent + name : parent + [slash] + name)
                }
            }
            frontier = next
        }
        return frontier
    }

    /// The directories a walk of `pattern` passes through above a glob component: where a
    /// name made later can make a new match (`/` and `/home` for `/home/*`).
    static func parents(of pattern: [UInt8]) -> [[UInt8]] {
        let slash = UInt8(ascii: "/")
        let components = pattern.split(separator: slash)
        var parents: [[UInt8]] = []
        for level in components.indices where components[level...].contains(where: RootPattern.isGlob) {
            let prefix = [slash] + Array(components[..<level].joined(separator: [slash]))
            parents += level == 0 ? [[slash]] : directories(matching: prefix)
        }
        return parents
    }

    private static func listed(_ directory: [UInt8]) -> [[UInt8]] {
        guard let opened = try? FileDescriptor.currentWorkingDirectory.openDirectory(directory, followSymlinks: true)
        else { return [] }
        defer { opened.close() }
        return (try? DirectoryEntries.names(of: opened)) ?? []
    }

    private static func isDirectory(_ name: [UInt8], in parent: [UInt8], following: Bool) -> Bool {
        guard let opened = try? FileDescriptor.currentWorkingDirectory.openDirectory(parent, followSymlinks: true)
        else { return false }
        defer { opened.close() }
        guard following else { return (try? opened.status(of: name))?.kind == .directory }
        guard let child = try? opened.openDirectory(name, followSymlinks: true) else { return false }
        child.close()
        return true
    }
}
