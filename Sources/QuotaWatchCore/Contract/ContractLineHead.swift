/// What a line of the control socket is, read before the rest: a request (it has `command`),
/// an event (its `event`), a registered cleaner's reply (its `context`), or an error document
/// (`error` its only member). The connection that carries several kinds of line reads this
/// first, then the line's own shape.
package struct ContractLineHead: Decodable, Sendable, Hashable {
    package var isRequest: Bool
    package var event: String?
    /// The context a reply answers, when it names one as a whole number.
    package var context: UInt64?
    /// The message of an error document.
    package var error: String?

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ContractKey.self)
        isRequest = container.contains(ContractKey("command"))
        event = (try? container.decodeIfPresent(String.self, forKey: ContractKey("event"))) ?? nil
        context = (try? container.decodeIfPresent(UInt64.self, forKey: ContractKey("context"))) ?? nil
        error =
            container.allKeys.count == 1
            ? (try? container.decodeIfPresent(String.self, forKey: ContractKey("error"))) ?? nil : nil
    }

    /// The head of `line`; nil when it is not a JSON object.
    package static func read(_ line: some Sequence<UInt8>) -> ContractLineHead? {
        try? ContractJSON.decode(ContractLineHead.self, from: line)
    }
}

/// A field of a line that is not what its shape says, named for the peer that sent it.
package struct ContractFieldError: Error, CustomStringConvertible, Sendable {
    package var description: String

    package init(_ description: String) { self.description = description }
}
