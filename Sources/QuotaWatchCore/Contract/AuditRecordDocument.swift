/// One line of the audit log: an `intent`, written and synced before a name is removed, or
/// the `outcome` that follows it. `record` says which. The cleaning target writes them;
/// recovery at start and history's import read them.
///
/// `{"record":"intent","seq":N,"run":…,"path":…,"device":N,"inode":N,"bytes":N,
/// "kind":"file"|"directory"|"symlink","rule":…,"trigger":…,"cleaner":…,"time":…}`,
/// `{"record":"outcome","seq":N,"run":…,"path":…,"result":…,"time":…}`; paths relative to
/// ROOT, escaped (``EscapedName``). The writer always writes every field; a reader needs only
/// what recovery needs (an intent's `run`, `seq`, `path`, `device`, `inode`; an outcome's
/// `run` and `seq`), so a log an older version wrote, or a line a test wrote by hand, reads
/// with the others absent (nil) and is written back the same.
package enum AuditRecordDocument: Sendable, Hashable, Codable {
    case intent(Intent)
    case outcome(Outcome)

    package struct Intent: Sendable, Hashable, Codable {
        package var sequence: UInt64
        package var run: String
        package var path: String
        package var device: UInt64
        package var inode: UInt64
        /// Allocated bytes of what the name leads to.
        package var bytes: UInt64?
        /// `file`, `directory` or `symlink`.
        package var kind: String?
        package var rule: String?
        package var trigger: String?
        package var cleaner: String?
        package var time: String?

        package init(
            sequence: UInt64, run: String, path: String, device: UInt64, inode: UInt64, bytes: UInt64?,
            kind: String?, rule: String?, trigger: String?, cleaner: String?, time: String?
        ) {
            self.sequence = sequence
            self.run = run
            self.path = path
            self.device = device
            self.inode = inode
            self.bytes = bytes
            self.kind = kind
            self.rule = rule
            self.trigger = trigger
            self.cleaner = cleaner
            self.time = time
        }

        enum CodingKeys: String, CodingKey {
            case run, path, device, inode, bytes, kind, rule, trigger, cleaner, time
            case sequence = "seq"
        }
    }

    package struct Outcome: Sendable, Hashable, Codable {
        package var sequence: UInt64
        package var run: String
        package var path: String?
        /// `deleted`, `not done: …`, `recovered: gone`, `recovered: present`, …
        package var result: String?
        package var time: String?

        package init(sequence: UInt64, run: String, path: String?, result: String?, time: String?) {
            self.sequence = sequence
            self.run = run
            self.path = path
            self.result = result
            self.time = time
        }

        enum CodingKeys: String, CodingKey {
            case run, path, result, time
            case sequence = "seq"
        }
    }

    package var run: String {
        switch self {
        case .intent(let intent): intent.run
        case .outcome(let outcome): outcome.run
        }
    }

    package var sequence: UInt64 {
        switch self {
        case .intent(let intent): intent.sequence
        case .outcome(let outcome): outcome.sequence
        }
    }

    package var path: String? {
        switch self {
        case .intent(let intent): intent.path
        case .outcome(let outcome): outcome.path
        }
    }

    package var time: String? {
        switch self {
        case .intent(let intent): intent.time
        case .outcome(let outcome): outcome.time
        }
    }

    private enum RecordKey: String, CodingKey {
        case record
    }

    package func encode(to encoder: any Encoder) throws {
        var record = encoder.container(keyedBy: RecordKey.self)
        switch self {
        case .intent(let intent):
            try record.encode("intent", forKey: .record)
            try intent.encode(to: encoder)
        case .outcome(let outcome):
            try record.encode("outcome", forKey: .record)
            try outcome.encode(to: encoder)
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RecordKey.self)
        let record = try container.decode(String.self, forKey: .record)
        switch record {
        case "intent": self = .intent(try Intent(from: decoder))
        case "outcome": self = .outcome(try Outcome(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .record, in: container, debugDescription: "an audit record of an unknown kind '\(record)'")
        }
    }
}

/// The `deletion` event history files for an audit intent: the intent's fields, `event` for
/// `record`, and the `result` its outcome gave (`pending` until one is read).
package struct DeletionEventDocument: Sendable, Hashable, Codable {
    package static let kind = "deletion"

    package var intent: AuditRecordDocument.Intent
    package var result: String

    package init(intent: AuditRecordDocument.Intent, result: String) {
        self.intent = intent
        self.result = result
    }

    private enum Key: String, CodingKey {
        case event, result
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(Self.kind, forKey: .event)
        try container.encode(result, forKey: .result)
        try intent.encode(to: encoder)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        try container.expectKind(Self.kind, forKey: .event)
        result = try container.decode(String.self, forKey: .result)
        intent = try AuditRecordDocument.Intent(from: decoder)
    }
}
