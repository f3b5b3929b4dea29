import Foundation
import QuotaWatchCore
import QuotaWatchPolicy

/// The lines a registered cleaner's connection carries for a run: the context the daemon
/// sends and the reply it reads back. Paths are relative to ROOT and escaped as everywhere in
/// the JSON (`\xNN`, `\\`).
///
/// Context: `{"event":"context","context":N,"cleaner":"feed","run":…,"trigger":{"kind":…},
/// "level":…,"dry_run":false,"directory":{"path","size","used","effective_limit","target",
/// "tally":{"allocated","apparent","files","dirs"}}|null,"candidates":[{"path","allocated",
/// "apparent","modified_ms","rule"}]}`.
///
/// Reply: `{"freed":N,"removed":["path",…]}` (`context`: N optional, to say which it answers),
/// or `{"error":"…"}`.
package enum RegisteredCleanerWire {
    package static let replyFields = ["context", "error", "freed", "removed"]

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
        let reply: Reply
        do {
            reply = try ContractJSON.decode(Reply.self, from: line)
        } catch let failure as ControlProtocol.Failure {
            return .failure(failure)
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
        for text in reply.removed {
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
        result.unattributedFreedBytes = reply.freed
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

    /// The reply as sent; fields checked one by one so that each mistake has its own message.
    private struct Reply: Decodable {
        var freed: UInt64 = 0
        var removed: [String] = []
        var error: String?
        var context: UInt64?

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if let unknown = container.allKeys.map(\.stringValue).filter({ !replyFields.contains($0) }).sorted().first {
                throw ControlProtocol.Failure(
                    "its reply has an unknown field '\(unknown)'; a reply's fields are "
                        + replyFields.joined(separator: ", "))
            }
            func field<Value: Decodable>(_ name: String, _ type: Value.Type, _ expected: String) throws -> Value? {
                do {
                    return try container.decodeIfPresent(type, forKey: Key(stringValue: name)!)
                } catch {
                    throw ControlProtocol.Failure("its reply's '\(name)' must be \(expected)")
                }
            }
            freed = try field("freed", UInt64.self, "a whole number of bytes, 0 or more") ?? 0
            removed = try field("removed", [String].self, "an array of paths (strings)") ?? []
            error = try field("error", String.self, "a string")
            context = try field("context", UInt64.self, "the number of the context it answers")
        }
    }

    /// The context number a reply names, if it is a JSON object that names one.
    static func contextNumber(in object: [String: Any]) -> UInt64? {
        (object["context"] as? NSNumber).flatMap { UInt64(exactly: $0.doubleValue) }
    }

    private static func excerpt(_ line: [UInt8]) -> String {
        let text = HumanText.name(Array(line.prefix(60)))
        return line.count > 60 ? "'\(text)…'" : "'\(text)'"
    }
}
