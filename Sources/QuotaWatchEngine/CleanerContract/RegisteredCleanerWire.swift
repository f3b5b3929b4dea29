import QuotaWatchCore
import QuotaWatchPolicy

/// The lines a registered cleaner's connection carries for a run: the context the daemon
/// sends and the reply it reads back. Paths are relative to ROOT and escaped as everywhere in
/// the JSON (`\xNN`, `\\`).
///
/// Both are shapes of the contract: ``RegisteredCleanerContext`` and
/// ``RegisteredCleanerReplyLine``.
package enum RegisteredCleanerWire {
    /// Reads a reply line: what it removed (each inside the registration's paths) and freed,
    /// or its error. Every mistake is named: not JSON, an unknown field, a wrong type, a path
    /// that is not escaped right, leaves ROOT, or is outside the cleaner's paths.
    package static func decodeReply(_ line: [UInt8], paths: [[UInt8]]) -> Result<CleanupResult, ControlProtocol.Failure>
    {
        guard String(validating: line, as: UTF8.self) != nil else {
            return .failure(
                ControlProtocol.Failure(
                    "its reply is not UTF-8 text; write a name's bytes that are not UTF-8 as \\xNN, "
                        + "as the context writes them"))
        }
        let reply: RegisteredCleanerReplyLine
        do {
            reply = try ContractJSON.decode(RegisteredCleanerReplyLine.self, from: line)
        } catch let failure as ContractFieldError {
            return .failure(ControlProtocol.Failure(failure.description))
        } catch {
            return .failure(
                ControlProtocol.Failure(
                    "its reply is not a JSON object (\(excerpt(line))); reply {\"freed\":N,\"removed\":[…]} "
                        + "or {\"error\":\"…\"} on one line"))
        }
        if let message = reply.error {
            return .failure(ControlProtocol.Failure("it answered with an error: \(message)"))
        }
        var result = CleanupResult()
        var outside: [String] = []
        for text in reply.removed ?? [] {
            switch removedPath(text) {
            case .success(let path) where paths.contains(where: { RegisterCleanerRequest.isAtOrBelow(path, $0) }):
                if !result.removed.contains(where: { $0.path == path }) {
                    result.removed.append(RemovedItem(path: path, freedBytes: 0))
                }
            case .success:
                outside.append(text)
            case .failure(let failure):
                return .failure(failure)
            }
        }
        result.unattributedFreedBytes = reply.freed ?? 0
        if !outside.isEmpty {
            result.error =
                "it reported removing \(outside.count) path(s) outside its paths, not counted: "
                + outside.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
        }
        return .success(result)
    }

    /// A removed path as the context writes them: relative to ROOT, escaped, its components
    /// joined by single slashes. Anything else names no file the cleaner could have removed
    /// (a NUL byte, which no name holds; `..`, `.` or an empty component, which the context
    /// never writes; an absolute path), so it is the cleaner's error, never a removal.
    static func removedPath(_ text: String) -> Result<[UInt8], ControlProtocol.Failure> {
        let wayOut = "; report each path removed as the context wrote it"
        guard let bytes = EscapedName.bytes(text) else {
            return .failure(
                ControlProtocol.Failure(
                    "its reply names a bad path: '\(text)' has a backslash that starts neither '\\\\' nor '\\xNN'"
                        + wayOut))
        }
        let shown = EscapedName.string(bytes)
        if bytes.contains(0) {
            return .failure(
                ControlProtocol.Failure(
                    "its reply names '\(shown)', which holds a NUL byte: no file has such a name" + wayOut))
        }
        if bytes.first == UInt8(ascii: "/") {
            return .failure(
                ControlProtocol.Failure(
                    "its reply names '\(shown)', an absolute path; give it relative to ROOT" + wayOut))
        }
        for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.elementsEqual([0x2E, 0x2E]) {
                return .failure(
                    ControlProtocol.Failure("its reply names '\(shown)', which leaves its directory with '..'" + wayOut)
                )
            }
            if component.isEmpty || component.elementsEqual([0x2E]) {
                return .failure(
                    ControlProtocol.Failure(
                        "its reply names '\(shown)', which has an empty or '.' component (a doubled or trailing "
                            + "slash, say)" + wayOut))
            }
        }
        return .success(bytes)
    }

    private static func excerpt(_ line: [UInt8]) -> String {
        let text = HumanText.name(Array(line.prefix(60)))
        return line.count > 60 ? "'\(text)…'" : "'\(text)'"
    }
}
