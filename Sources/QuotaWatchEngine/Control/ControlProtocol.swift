import Foundation
import QuotaWatchCore
import QuotaWatchPolicy

// The control protocol, one exchange per connection:
//
//   client → daemon   one JSON object on one line: {"command":"status","depth":1,"sync":true}
//   daemon → client   one JSON document on one line, then the daemon closes
//
// A request the daemon cannot serve gets {"error":"…"} instead of the command's document.
// Requests are decoded and checked here, and only here: the engine sees a ``ControlRequest``
// whose every field has been validated, and a client gets one clear error per mistake.

/// What a client asks the daemon to do.
package struct ControlRequest: Hashable, Sendable {
    package var command: ControlCommand
    /// Answer only once every change made before the request has been applied (the sync
    /// barrier of `status --sync`). A property of the request, not of one command, so later
    /// commands (a clean listing, say) get it for free.
    package var sync: Bool

    package init(_ command: ControlCommand, sync: Bool = false) {
        self.command = command
        self.sync = sync
    }

    /// The request as sent: its JSON and a newline.
    package func encodedLine() -> [UInt8] {
        ContractJSON.encode(self) + [UInt8(ascii: "\n")]
    }
}

/// Every command the daemon answers. A new request (a clean listing, history) is a new case
/// with its own fields, decoded in ``ControlRequest/init(from:)``.
package enum ControlCommand: Hashable, Sendable {
    case status(StatusQuery)
    /// Run every cleaner now; the reply is the run's summary, sent when the run ends.
    case clean(CleanupRunRequest)
    /// The storage page's files from the live tree (`quotawatch clean ROOT`).
    case cleanList
    /// Delete what a selection of the storage page names, on the cleanup runner.
    case cleanDelete(CleanDeleteRequest)
    /// Keep the connection open and stream every event the engine emits, one JSON line each,
    /// after a first `{"event":"subscribed","capacity":N}` line (see ``ControlEventFeed``).
    /// With `recent` above 0, the greeting says how many of the newest events the daemon
    /// remembers (at most `recent`) follow it, before the first one emitted since: the
    /// attached view's log starts with what came before it attached.
    case events(recent: Int)
    /// Keep the connection open as a cleaner of some paths (``RegisterCleanerRequest``).
    case registerCleaner(RegisterCleanerRequest)

    package static let names = ["status", "clean", "clean_list", "clean_delete", "events", "register_cleaner"]

    package var name: String {
        switch self {
        case .status: "status"
        case .clean: "clean"
        case .cleanList: "clean_list"
        case .cleanDelete: "clean_delete"
        case .events: "events"
        case .registerCleaner: "register_cleaner"
        }
    }
}

/// What a `clean` request (`clean-now`, `watch`'s `c`) asks for: a cleanup run now.
package struct CleanupRunRequest: Hashable, Sendable {
    /// The name the run's `manual` trigger carries (`clean-now --trigger NAME`).
    package var trigger: String
    /// Report what would be removed and remove nothing, even under `run --clean`.
    package var dryRun: Bool

    package init(trigger: String = "manual", dryRun: Bool = false) {
        self.trigger = trigger
        self.dryRun = dryRun
    }
}

/// What a status request selects.
package enum StatusQuery: Hashable, Sendable {
    /// Directories of the tree: a subtree, to a depth, optionally only the largest.
    case tree(TreeSelection)
    /// The directories that carry a quota rule, with their limits and states, and the disk
    /// level (``QuotaStatus``).
    case quotas

    package static let selectors = ["tree", "quotas"]
}

// MARK: The wire form

extension ControlRequest: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static let statusFields = ["command", "depth", "files", "path", "select", "sync", "top"]
    private static let cleanFields = ["command", "trigger", "dry_run"]
    private static let cleanListFields = ["command"]

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(command.name, forKey: Key("command"))
        if sync { try container.encode(true, forKey: Key("sync")) }
        switch command {
        case .status(.quotas):
            try container.encode("quotas", forKey: Key("select"))
        case .status(.tree(let selection)):
            if !selection.subtree.isEmpty {
                try container.encode(EscapedName.string(selection.subtree), forKey: Key("path"))
            }
            if let depth = selection.depth { try container.encode(depth, forKey: Key("depth")) }
            if let top = selection.top { try container.encode(top, forKey: Key("top")) }
            if let files = selection.files { try container.encode(files, forKey: Key("files")) }
        case .clean(let clean):
            try container.encode(clean.trigger, forKey: Key("trigger"))
            if clean.dryRun { try container.encode(true, forKey: Key("dry_run")) }
        case .cleanList:
            break
        case .cleanDelete(let delete):
            for (key, value) in delete.wireFields() {
                switch value {
                case .strings(let strings): try container.encode(strings, forKey: Key(key))
                case .number(let number): try container.encode(number, forKey: Key(key))
                case .flag(let flag): try container.encode(flag, forKey: Key(key))
                }
            }
        case .events(let recent):
            if recent > 0 { try container.encode(recent, forKey: Key("recent")) }
        case .registerCleaner(let register):
            try container.encode(register.name, forKey: Key("name"))
            try container.encode(register.paths.map { EscapedName.string($0) }, forKey: Key("paths"))
            if let timeout = register.timeout {
                try container.encode(timeout.clampedMilliseconds, forKey: Key("timeout_ms"))
            }
        }
    }

    /// Throws ``ControlProtocol/Failure`` naming the field that is wrong and what it must be.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let present = Set(container.allKeys.map(\.stringValue))
        guard let name = try Self.field("command", String.self, "a string such as \"status\"", in: container) else {
            throw ControlProtocol.Failure(#"the request has no "command"; send one such as {"command":"status"}"#)
        }
        switch name {
        case "status":
            if let unknown = present.subtracting(Self.statusFields).sorted().first {
                throw ControlProtocol.Failure(
                    "unknown field '\(unknown)' in a status request; its fields are "
                        + Self.statusFields.joined(separator: ", "))
            }
            sync = try Self.field("sync", Bool.self, "true or false", in: container) ?? false
            command = .status(try Self.statusQuery(container, present: present))
        case "clean":
            if let unknown = present.subtracting(Self.cleanFields).sorted().first {
                throw ControlProtocol.Failure(
                    "unknown field '\(unknown)' in a clean request; its fields are "
                        + Self.cleanFields.joined(separator: ", "))
            }
            sync = false
            let trigger = try Self.field("trigger", String.self, "a name such as \"manual\"", in: container) ?? "manual"
            guard CleanupRunRequest.isValidName(trigger) else {
                throw ControlProtocol.Failure(
                    "'trigger' must be 1 to 64 letters, digits, '-', '_' or '.', not '\(trigger)'")
            }
            let dryRun = try Self.field("dry_run", Bool.self, "true or false", in: container) ?? false
            command = .clean(CleanupRunRequest(trigger: trigger, dryRun: dryRun))
        case "clean_list":
            if let unknown = present.subtracting(Self.cleanListFields).sorted().first {
                throw ControlProtocol.Failure("unknown field '\(unknown)' in a clean_list request; it has no fields")
            }
            sync = false
            command = .cleanList
        case "clean_delete":
            if let unknown = present.subtracting(CleanDeleteRequest.fields).sorted().first {
                throw ControlProtocol.Failure(
                    "unknown field '\(unknown)' in a clean_delete request; its fields are "
                        + CleanDeleteRequest.fields.joined(separator: ", "))
            }
            sync = false
            let words = { (name: String) throws -> [[UInt8]] in
                (try Self.field(name, [String].self, "an array of strings", in: container) ?? []).map { Array($0.utf8) }
            }
            let olderThan = try Self.field(
                "older_than_ms", UInt64.self, "a whole number of milliseconds", in: container)
            let largerThan = try Self.field("larger_than", UInt64.self, "a whole number of bytes", in: container)
            do {
                let selection = try CleanSelection.parse(
                    categories: try words("categories"), kinds: try words("kinds"), paths: try words("paths"),
                    olderThan: olderThan.map { Array("\($0)ms".utf8) },
                    largerThan: largerThan.map { Array("\($0)".utf8) })
                guard selection.namesSomething else {
                    throw CleanSelectionError("a clean_delete request names no category, kind or path")
                }
                let dryRun = try Self.field("dry_run", Bool.self, "true or false", in: container) ?? false
                command = .cleanDelete(CleanDeleteRequest(selection: selection, dryRun: dryRun))
            } catch let error as CleanSelectionError {
                throw ControlProtocol.Failure(error.description)
            }
        case "events":
            if let unknown = present.subtracting(["command", "recent"]).sorted().first {
                throw ControlProtocol.Failure(
                    "unknown field '\(unknown)' in an events request; its one field is recent")
            }
            sync = false
            let recent = try Self.field("recent", Int.self, "a whole number, 0 or more", in: container) ?? 0
            guard recent >= 0 else {
                throw ControlProtocol.Failure("'recent' must be a whole number, 0 or more, not \(recent)")
            }
            command = .events(recent: recent)
        case "register_cleaner":
            if let unknown = present.subtracting(RegisterCleanerRequest.fields).sorted().first {
                throw ControlProtocol.Failure(
                    "unknown field '\(unknown)' in a register_cleaner request; its fields are "
                        + RegisterCleanerRequest.fields.joined(separator: ", "))
            }
            sync = false
            command = .registerCleaner(
                try RegisterCleanerRequest.checked(
                    name: try Self.field("name", String.self, "a name such as \"feed\"", in: container),
                    paths: try Self.field(
                        "paths", [String].self, "an array of paths relative to the root", in: container),
                    timeoutMilliseconds: try Self.field(
                        "timeout_ms", UInt64.self, "a whole number of milliseconds", in: container)))
        default:
            throw ControlProtocol.Failure(
                "unknown command '\(name)'; the commands are " + ControlCommand.names.joined(separator: ", "))
        }
    }

    private static func statusQuery(
        _ container: KeyedDecodingContainer<Key>, present: Set<String>
    ) throws
        -> StatusQuery
    {
        let selector = try field("select", String.self, "one of \(StatusQuery.selectors)", in: container) ?? "tree"
        switch selector {
        case "tree":
            var selection = TreeSelection()
            if let path = try field("path", String.self, "a path relative to the root", in: container) {
                switch TreeSelection.subtree(fromEscaped: path) {
                case .success(let subtree): selection.subtree = subtree
                case .failure(let error): throw ControlProtocol.Failure(error.description)
                }
            }
            selection.depth = try field("depth", Int.self, "a whole number, 0 or more", in: container)
            if let depth = selection.depth, depth < 0 {
                throw ControlProtocol.Failure("'depth' must be a whole number, 0 or more, not \(depth)")
            }
            selection.top = try field("top", Int.self, "a whole number, 1 or more", in: container)
            if let top = selection.top, top < 1 {
                throw ControlProtocol.Failure("'top' must be a whole number, 1 or more, not \(top)")
            }
            selection.files = try field("files", Int.self, "a whole number, 1 or more", in: container)
            if let files = selection.files, files < 1 {
                throw ControlProtocol.Failure("'files' must be a whole number, 1 or more, not \(files)")
            }
            return .tree(selection)
        case "quotas":
            if let extra = present.intersection(["path", "depth", "top", "files"]).sorted().first {
                throw ControlProtocol.Failure("'\(extra)' applies to select \"tree\", not \"quotas\"")
            }
            return .quotas
        default:
            throw ControlProtocol.Failure(
                "unknown select '\(selector)'; it is one of " + StatusQuery.selectors.joined(separator: ", "))
        }
    }

    private static func field<Value: Decodable>(
        _ name: String, _ type: Value.Type, _ expected: String, in container: KeyedDecodingContainer<Key>
    ) throws -> Value? {
        do {
            return try container.decodeIfPresent(type, forKey: Key(name))
        } catch {
            throw ControlProtocol.Failure("'\(name)' must be \(expected)")
        }
    }
}

/// The framing, decoding and the shared error document.
package enum ControlProtocol {
    /// The largest request line the daemon reads; a request is a few dozen bytes.
    package static let maximumRequestBytes = 64 * 1024
    /// The largest reply the client accepts: a status document of a large tree is big, but
    /// not this big.
    package static let maximumReplyBytes = 256 * 1024 * 1024

    /// Why a request or reply could not be understood.
    package struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// Decodes and checks one request line (without its newline): the one place where a
    /// request is read.
    package static func decodeRequest(_ line: [UInt8]) -> Result<ControlRequest, Failure> {
        // JSON is UTF-8 text; a name that is not UTF-8 travels escaped, as the replies write it.
        if String(validating: line, as: UTF8.self) == nil {
            let offset =
                line.indices.first {
                    String(validating: line[..<($0 + 1)], as: UTF8.self) == nil
                        && String(validating: line[..<$0], as: UTF8.self) != nil
                } ?? 0
            return .failure(
                Failure(
                    "the request is not UTF-8 text (byte 0x\(String(line[offset], radix: 16)) at offset \(offset)); "
                        + "write a name's bytes that are not UTF-8 as \\xNN, as status --json shows them"))
        }
        do {
            return .success(try ContractJSON.decode(ControlRequest.self, from: line))
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(
                Failure(#"malformed request: expected one JSON object such as {"command":"status"} on one line"#))
        }
    }

    /// `{"error":"message"}`, the reply to a request that cannot be served.
    package static func errorDocument(_ message: String) -> [UInt8] {
        ContractJSON.encode(ControlErrorDocument(error: message))
    }

    /// What a reply holds.
    package enum ReplyKind: Hashable, Sendable {
        /// A JSON object or array: the command's document.
        case document
        /// An error document: a JSON object whose only member is the string "error". A status
        /// document that merely has an "error" member among others is a ``document``.
        case error(String)
        case notJSON
    }

    package static func classify(_ reply: [UInt8]) -> ReplyKind {
        switch try? ContractJSON.decode(PolicyJSON.self, from: reply) {
        case .object(let fields):
            if fields.count == 1, case .string(let message)? = fields["error"] { return .error(message) }
            return .document
        case .array: return .document
        default: return .notJSON
        }
    }

    /// The message of an error document, or nil for any other reply.
    package static func errorMessage(in reply: [UInt8]) -> String? {
        guard case .error(let message) = classify(reply) else { return nil }
        return message
    }
}

/// A reply the engine hands to a connection's thread, which encodes it there: the engine
/// thread never spends time on JSON for a client.
package protocol ControlReplyDocument: Sendable {
    /// The document's JSON, one line.
    func replyJSON() -> [UInt8]
}

extension CleanupRunRequest {
    /// A trigger name: 1 to 64 of letters, digits, `-`, `_` and `.`.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7a) || byte == 0x2d
                    || byte == 0x5f || byte == 0x2e
            }
    }
}

extension CleanupSummary: ControlReplyDocument {
    package func replyJSON() -> [UInt8] { Array(jsonLine.utf8) }
}

extension StatusSnapshot: ControlReplyDocument {
    package func replyJSON() -> [UInt8] { wireJSON() }
}
