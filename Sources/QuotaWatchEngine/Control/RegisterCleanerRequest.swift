import QuotaWatchCore

/// `{"command":"register_cleaner","name":"feed","paths":["Library/Caches/com.example.feed"]}`:
/// a running program offers itself as a cleaner of `paths`. The connection stays open: the
/// daemon sends it a context line on each run that concerns those paths and waits for its
/// reply (``RegisteredCleaners``).
package struct RegisterCleanerRequest: Hashable, Sendable {
    /// Named in the `cleanup` event: 1 to 64 letters, digits, `-`, `_` or `.`.
    package var name: String
    /// Directories relative to ROOT (raw bytes), none of them leaving it.
    package var paths: [[UInt8]]
    /// How long the daemon waits for each reply; nil takes the config's (or the default).
    package var timeout: Duration?

    package static let fields = ["command", "name", "paths", "timeout_ms"]
    /// The most paths one registration names.
    package static let maximumPaths = 64
    /// The longest wait for a reply a registration may ask for (the daemon's reply timeout).
    package static let maximumTimeout: Duration = .seconds(600)

    package init(name: String, paths: [[UInt8]], timeout: Duration? = nil) {
        self.name = name
        self.paths = paths
        self.timeout = timeout
    }

    /// Checks what was decoded; throws the one clear error for the first thing wrong.
    static func checked(
        name: String?, paths: [String]?, timeoutMilliseconds: UInt64?
    ) throws(ControlProtocol.Failure) -> RegisterCleanerRequest {
        guard let name else {
            throw ControlProtocol.Failure(
                #"a register_cleaner request needs a "name", such as {"command":"register_cleaner","name":"feed","paths":["Library/Caches/feed"]}"#
            )
        }
        guard CleanupRunRequest.isValidName(name) else {
            throw ControlProtocol.Failure("'name' must be 1 to 64 letters, digits, '-', '_' or '.', not '\(name)'")
        }
        guard let paths, !paths.isEmpty else {
            throw ControlProtocol.Failure(
                "a register_cleaner request needs \"paths\": the directories it cleans, relative to the root, "
                    + "such as [\"Library/Caches/feed\"]")
        }
        guard paths.count <= maximumPaths else {
            throw ControlProtocol.Failure(
                "'paths' names \(paths.count) directories; one registration takes at most \(maximumPaths)")
        }
        var decoded: [[UInt8]] = []
        for text in paths {
            switch TreeSelection.subtree(fromEscaped: text) {
            case .success(let path) where path.isEmpty:
                throw ControlProtocol.Failure(
                    "path '\(text)' is the root itself; a registered cleaner names the directories it owns, "
                        + "such as 'Library/Caches/feed'")
            case .success(let path):
                if !decoded.contains(path) { decoded.append(path) }
            case .failure(let error):
                throw ControlProtocol.Failure(error.description)
            }
        }
        var timeout: Duration?
        if let milliseconds = timeoutMilliseconds {
            guard milliseconds >= 1, milliseconds <= UInt64(maximumTimeout.components.seconds) * 1000 else {
                throw ControlProtocol.Failure(
                    "'timeout_ms' must be 1 to \(maximumTimeout.components.seconds * 1000) milliseconds, "
                        + "not \(milliseconds)")
            }
            timeout = .milliseconds(Int64(milliseconds))
        }
        return RegisterCleanerRequest(name: name, paths: decoded, timeout: timeout)
    }

    /// Whether `path` is one of `paths`, below one, or above one: a run there concerns it.
    package static func concerns(_ paths: [[UInt8]], _ path: [UInt8]) -> Bool {
        paths.contains { isAtOrBelow(path, $0) || isAtOrBelow($0, path) }
    }

    /// Whether `path` is `ancestor` or inside it (by whole components).
    package static func isAtOrBelow(_ path: [UInt8], _ ancestor: [UInt8]) -> Bool {
        if ancestor.isEmpty { return true }
        guard path.starts(with: ancestor) else { return false }
        return path.count == ancestor.count || path[ancestor.count] == UInt8(ascii: "/")
    }
}
