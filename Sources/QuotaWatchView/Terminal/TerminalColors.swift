/// Whether a full-screen page may use colours: not when `NO_COLOR` is set to anything but the
/// empty string (no-color.org). Bold, reverse and dim stay, so states still stand out.
package enum TerminalColors {
    package static func wanted(_ environment: [String: String]) -> Bool {
        guard let value = environment["NO_COLOR"] else { return true }
        return value.isEmpty
    }
}
