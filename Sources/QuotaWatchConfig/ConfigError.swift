import QuotaWatchCore

/// A config that cannot be used: where (file, line, column), which key, the bad value, and
/// what is allowed, on one line.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// The key's path, such as `quotas[1].limit`; empty for the whole document.
    public var key: String
    public var message: String

    public init(file: String, line: Int, column: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// One line, whatever the file's name or the values it quotes hold: each part is escaped
    /// as every human output escapes names (``HumanText``).
    public var description: String {
        HumanText.escaped(
            "\(file):\(line):\(column): " + (key.isEmpty ? "" : "\(key): ") + message)
    }
}
