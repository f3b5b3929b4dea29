import Foundation

// The control protocol, one exchange per connection:
//
//   client → daemon   one JSON object on one line: {"command":"status","sync":true}
//   daemon → client   one JSON document on one line, then the daemon closes
//
// A request the daemon cannot serve gets {"error":"…"} instead of the command's document.

/// What a client asks the daemon to do.
public struct ControlRequest: Codable, Hashable, Sendable {
    /// The command's name, such as "status".
    public var command: String
    /// For "status": apply everything written before the request first (the sync barrier).
    public var sync: Bool?

    public init(command: String, sync: Bool? = nil) {
        self.command = command
        self.sync = sync
    }

    /// The commands the daemon answers; any other is refused with an error document before
    /// it reaches the handler.
    public static let knownCommands: Set<String> = ["status"]

    /// The request as sent: its JSON and a newline.
    public func encodedLine() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of a string and an optional bool cannot fail.
        let json = (try? encoder.encode(self)) ?? Data()
        return Array(json) + [UInt8(ascii: "\n")]
    }

    /// Decodes one request line (without its newline).
    public static func decode(_ line: [UInt8]) -> Result<ControlRequest, ControlProtocol.Failure> {
        do {
            return .success(try JSONDecoder().decode(ControlRequest.self, from: Data(line)))
        } catch {
            return .failure(
                ControlProtocol.Failure(
                    #"malformed request: expected one JSON object such as {"command":"status"} on one line"#))
        }
    }
}

/// The framing and the shared error document.
public enum ControlProtocol {
    /// The largest request line the daemon reads; a request is a few dozen bytes.
    public static let maximumRequestBytes = 64 * 1024
    /// The largest reply the client accepts: a status document of a large tree is big, but
    /// not this big.
    public static let maximumReplyBytes = 256 * 1024 * 1024

    /// Why a request or reply could not be understood.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// `{"error":"message"}`, the reply to a request that cannot be served.
    public static func errorDocument(_ message: String) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(ErrorDocument(error: message))) ?? Data())
    }

    /// The reply for a command the daemon does not know.
    public static func unknownCommandDocument(_ command: String) -> [UInt8] {
        errorDocument("unknown command '\(command)'")
    }

    /// What a reply holds.
    public enum ReplyKind: Hashable, Sendable {
        /// A JSON object or array: the command's document.
        case document
        /// An error document: a JSON object whose only member is the string "error". A status
        /// document that merely has an "error" member among others is a ``document``.
        case error(String)
        case notJSON
    }

    public static func classify(_ reply: [UInt8]) -> ReplyKind {
        guard let value = try? JSONSerialization.jsonObject(with: Data(reply)) else { return .notJSON }
        if let object = value as? [String: Any], object.count == 1, let message = object["error"] as? String {
            return .error(message)
        }
        return .document
    }

    /// The message of an error document, or nil for any other reply.
    public static func errorMessage(in reply: [UInt8]) -> String? {
        guard case .error(let message) = classify(reply) else { return nil }
        return message
    }

    private struct ErrorDocument: Encodable {
        var error: String
    }
}
