/// One word of the command line, kept as the bytes the kernel passed: a path that is not
/// UTF-8 must still name the right directory. `text` is for matching options and messages.
struct CommandLineArgument: Equatable, ExpressibleByStringLiteral {
    var bytes: [UInt8]
    var text: String { String(decoding: bytes, as: UTF8.self) }

    init(bytes: [UInt8]) { self.bytes = bytes }
    init(_ text: String) { bytes = Array(text.utf8) }
    init(stringLiteral text: String) { self.init(text) }

    /// The process's arguments after the program name, byte for byte.
    static func processArguments() -> [CommandLineArgument] {
        var arguments: [CommandLineArgument] = []
        for index in 1..<Int(CommandLine.argc) {
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
