import QuotaWatchCore

/// One word of the command line, kept as the bytes the kernel passed: a path that is not
/// UTF-8 must still name the right directory. `text` is for matching options and messages.
struct CommandLineArgument: Equatable, ExpressibleByStringLiteral {
    var bytes: [UInt8]
    var text: String { String(decoding: bytes, as: UTF8.self) }
    /// The word as messages quote it: bytes that are not UTF-8 as `\xNN`, never as U+FFFD.
    var shown: String { HumanText.name(bytes) }

    init(bytes: [UInt8]) { self.bytes = bytes }
    init(_ text: String) { bytes = Array(text.utf8) }
    init(stringLiteral text: String) { self.init(text) }

    /// The word as text, for a value grammar that reads text; a word that is not UTF-8 is
    /// refused naming its bytes, where decoding would have shown U+FFFD in their place.
    func utf8Text(for option: String) throws(InvalidValue) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw InvalidValue(message: "Invalid value '\(shown)' for '\(option)': it is not UTF-8 text")
        }
        return text
    }

    /// The process's arguments after the program name, byte for byte.
    static func processArguments() -> [CommandLineArgument] {
        var arguments: [CommandLineArgument] = []
        // A program may exec this one with an empty argument vector (argc 0): no arguments,
        // the usage, not a trap on a backwards range.
        for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {
            guard let pointer = unsafe CommandLine.unsafeArgv[index] else { continue }
            var bytes: [UInt8] = []
            var offset = 0
            while unsafe pointer[offset] != 0 {
                bytes.append(UInt8(bitPattern: unsafe pointer[offset]))
                offset += 1
            }
            arguments.append(CommandLineArgument(bytes: bytes))
        }
        return arguments
    }
}
