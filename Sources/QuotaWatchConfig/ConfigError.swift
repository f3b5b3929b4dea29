import QuotaWatchCore

/// A config that cannot be used: where (file, line, column), which key, the bad value, and
/// what is allowed, on one line.
package struct ConfigError: Error, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var column: Int
    /// The key's path, such as `quotas[1].limit`; empty for the whole document.
    package var key: String
    package var message: String

    package init(file: String, line: Int, column: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// One line, whatever the file's name or the values it quotes hold: each part is escaped
    /// as every human output escapes names (``HumanText``).
    package var description: String {
        HumanText.escaped(
            "\(file):\(line):\(column): " + (key.isEmpty ? "" : "\(key): ") + message)
    }
}
