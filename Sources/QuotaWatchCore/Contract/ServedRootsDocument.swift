/// `quotawatch status --json` with no ROOT: every root a daemon of this user serves, found
/// at the default socket directory and at the `--socket` of the daemons running.
package struct ServedRootsDocument: Codable, Sendable, Equatable {
    package struct Root: Codable, Sendable, Equatable {
        /// The root as reports show it: absolute, escaped.
        package var root: String
        /// The control socket it answers on, escaped as paths are.
        package var socket: String
        package var allocated: UInt64
        package var apparent: UInt64
        package var files: UInt64
        package var dirs: UInt64
        /// The backend's events since the daemon started.
        package var events: UInt64

        package init(
            root: String, socket: String, allocated: UInt64, apparent: UInt64, files: UInt64, dirs: UInt64,
            events: UInt64
        ) {
            self.root = root
            self.socket = socket
            self.allocated = allocated
            self.apparent = apparent
            self.files = files
            self.dirs = dirs
            self.events = events
        }
    }

    /// In root order.
    package var roots: [Root]

    package init(roots: [Root]) { self.roots = roots.sorted { $0.root < $1.root } }

    /// The documented JSON: keys sorted, one line.
    package func encodedJSON() -> [UInt8] { ContractJSON.encode(self) }
}
