/// One line of the event stream (`run --events jsonl`, the socket's `events`, a hook's stdin,
/// a registered cleaner's connection), of every kind but the two with types of their own
/// (`cleanup`: ``CleanupSummaryDocument``; `cleanup_progress`: ``CleanupProgressEvent``).
/// The engine and the policy layer write it; `watch` and the registered cleaners' event
/// filter read it. `event` names the kind and the fields that follow it are the payload's
/// (an enum case per kind); `root` (the daemon's ROOT) and `time` are on every line that has
/// them.
///
/// A reader never fails on a kind it does not know, or on a line of a known kind that does
/// not have what this build writes (a newer or an older daemon's): it gets ``Payload/other``
/// with the fields as they came, and writes them back the same.
package struct ContractEvent: Sendable, Hashable, Codable {
    /// The contract's version, in the greeting of each stream (`subscribed`, `registered`):
    /// what a client checks before it reads on. Raised when a field changes meaning or goes;
    /// new fields and new kinds do not raise it (readers ignore what they do not know).
    package static let version = 1

    package enum Payload: Sendable, Hashable {
        /// The first crawl is done. `backend` is "inotify" or "fanotify", `backendReason` why.
        case ready(
            directories: Int64, files: Int64, allocated: UInt64, seconds: ContractNumber, backend: String?,
            backendReason: String?)
        case overflow
        case resynced(directories: Int64, seconds: ContractNumber)
        case degraded(paths: [String], watchesNeeded: Int64, maxUserWatches: Int64, message: String)
        case rootGone(message: String)
        /// SIGHUP found a bad config; the rules in force stay.
        case configError(message: String)
        case configReloaded(quotas: Int64, budgets: Int64)
        /// `quota_warning`, `quota_breach` or `quota_ok`; `used` is written under its `size`.
        case quota(
            state: QuotaState, path: String, size: SizeKind, used: UInt64, limit: UInt64, effectiveLimit: UInt64,
            rule: String, level: DiskLevel)
        case level(from: DiskLevel, to: DiskLevel, free: UInt64, total: UInt64, rootAllocated: UInt64)
        case leftover(path: String, allocated: UInt64, idleSeconds: Int64, rule: String)
        case leftoverGone(path: String, rule: String, reason: String)
        case forecast(path: String, secondsToBreach: Int64, bytesPerSecond: Int64, rule: String)
        case hookFailed(hook: String, failedEvent: String, status: Int64?, signal: Int64?, standardErrorTail: String)
        /// The `events` stream's greeting.
        /// `recent`: how many remembered lines follow before the first live one, when asked for.
        case subscribed(capacity: Int64, version: Int?, recent: Int64? = nil)
        /// Lines lost before the ones that follow.
        case dropped(count: Int64)
        /// A registered cleaner's greeting.
        case registered(name: String, paths: [String], timeoutMilliseconds: Int64, version: Int?)
        /// History's own: events it could not keep (its queue was full).
        case historyDropped(dropped: UInt64)
        /// History's own: its database was unusable, moved aside, and a new one started.
        case historyReset(movedTo: String, reason: String)
        /// A kind this build does not read (or a line it cannot): the fields but `event`,
        /// `root` and `time`, as they came.
        case other(kind: String, fields: [String: PolicyJSON])

        package var kind: String {
            switch self {
            case .ready: "ready"
            case .overflow: "overflow"
            case .resynced: "resynced"
            case .degraded: "degraded"
            case .rootGone: "root_gone"
            case .configError: "config_error"
            case .configReloaded: "config_reloaded"
            case .quota(let state, _, _, _, _, _, _, _): "quota_" + state.rawValue
            case .level: "level"
            case .leftover: "leftover"
            case .leftoverGone: "leftover_gone"
            case .forecast: "quota_forecast"
            case .hookFailed: "hook_failed"
            case .subscribed: "subscribed"
            case .dropped: "dropped"
            case .registered: "registered"
            case .historyDropped: "history_dropped"
            case .historyReset: "history_reset"
            case .other(let kind, _): kind
            }
        }
    }

    package var payload: Payload
    package var root: String?
    package var time: String?

    package init(_ payload: Payload, root: String?, time: String? = nil) {
        self.payload = payload
        self.root = root
        self.time = time
    }

    package var kind: String { payload.kind }

    /// The line's fields as a free-form object (`event`, `root` and `time` included): what a
    /// hook's environment and `history`'s listing show one by one.
    package var fields: [String: PolicyJSON] {
        guard case .object(let fields) = PolicyJSON(encoding: self) else { return [:] }
        return fields
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ContractKey.self)
        func put<Value: Encodable>(_ value: Value, _ key: String) throws {
            try container.encode(value, forKey: ContractKey(key))
        }
        try put(kind, "event")
        if let root { try put(root, "root") }
        if let time { try put(time, "time") }
        switch payload {
        case .ready(let directories, let files, let allocated, let seconds, let backend, let reason):
            try put(directories, "dirs")
            try put(files, "files")
            try put(allocated, "allocated")
            try put(seconds, "seconds")
            if let backend { try put(backend, "backend") }
            if let reason { try put(reason, "backend_reason") }
        case .overflow: break
        case .resynced(let directories, let seconds):
            try put(directories, "dirs")
            try put(seconds, "seconds")
        case .degraded(let paths, let needed, let limit, let message):
            try put(paths, "paths")
            try put(needed, "watches_needed")
            try put(limit, "max_user_watches")
            try put(message, "message")
        case .rootGone(let message), .configError(let message):
            try put(message, "message")
        case .configReloaded(let quotas, let budgets):
            try put(quotas, "quotas")
            try put(budgets, "budgets")
        case .quota(_, let path, let size, let used, let limit, let effectiveLimit, let rule, let level):
            try put(path, "path")
            try put(used, size.rawValue)
            try put(limit, "limit")
            try put(effectiveLimit, "effective_limit")
            try put(rule, "rule")
            try put(level, "level")
        case .level(let from, let to, let free, let total, let rootAllocated):
            try put(from, "from")
            try put(to, "to")
            try put(free, "free")
            try put(total, "total")
            try put(rootAllocated, "root_allocated")
        case .leftover(let path, let allocated, let idle, let rule):
            try put(path, "path")
            try put(allocated, "allocated")
            try put(idle, "idle_seconds")
            try put(rule, "rule")
        case .leftoverGone(let path, let rule, let reason):
            try put(path, "path")
            try put(rule, "rule")
            try put(reason, "reason")
        case .forecast(let path, let seconds, let rate, let rule):
            try put(path, "path")
            try put(seconds, "seconds_to_breach")
            try put(rate, "bytes_per_second")
            try put(rule, "rule")
        case .hookFailed(let hook, let failedEvent, let status, let signal, let tail):
            try put(hook, "hook")
            try put(failedEvent, "failed_event")
            // Null, not absent: one of the two is always there.
            try put(status, "status")
            try put(signal, "signal")
            try put(tail, "stderr_tail")
        case .subscribed(let capacity, let version, let recent):
            try put(capacity, "capacity")
            if let version { try put(version, "version") }
            if let recent { try put(recent, "recent") }
        case .dropped(let count):
            try put(count, "count")
        case .registered(let name, let paths, let timeout, let version):
            try put(name, "name")
            try put(paths, "paths")
            try put(timeout, "timeout_ms")
            if let version { try put(version, "version") }
        case .historyDropped(let dropped):
            try put(dropped, "dropped")
        case .historyReset(let movedTo, let reason):
            try put(movedTo, "moved_to")
            try put(reason, "reason")
        case .other(_, let fields):
            for (key, value) in fields where !["event", "root", "time"].contains(key) { try put(value, key) }
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ContractKey.self)
        let kind = try container.decode(String.self, forKey: ContractKey("event"))
        root = try? container.decodeIfPresent(String.self, forKey: ContractKey("root"))
        time = try? container.decodeIfPresent(String.self, forKey: ContractKey("time"))
        do {
            payload = try Self.payload(kind, container)
        } catch {
            guard case .object(var fields) = try PolicyJSON(from: decoder) else { throw error }
            for key in ["event", "root", "time"] { fields[key] = nil }
            payload = .other(kind: kind, fields: fields)
        }
    }

    private static func payload(_ kind: String, _ container: KeyedDecodingContainer<ContractKey>) throws -> Payload {
        func get<Value: Decodable>(_ key: String, _ type: Value.Type = Value.self) throws -> Value {
            try container.decode(type, forKey: ContractKey(key))
        }
        func optional<Value: Decodable>(_ key: String, _ type: Value.Type = Value.self) throws -> Value? {
            try container.decodeIfPresent(type, forKey: ContractKey(key))
        }
        switch kind {
        case "ready":
            return .ready(
                directories: try get("dirs"), files: try get("files"), allocated: try get("allocated"),
                seconds: try get("seconds"), backend: try optional("backend"),
                backendReason: try optional("backend_reason"))
        case "overflow": return .overflow
        case "resynced": return .resynced(directories: try get("dirs"), seconds: try get("seconds"))
        case "degraded":
            return .degraded(
                paths: try get("paths"), watchesNeeded: try get("watches_needed"),
                maxUserWatches: try get("max_user_watches"), message: try get("message"))
        case "root_gone": return .rootGone(message: try get("message"))
        case "config_error": return .configError(message: try get("message"))
        case "config_reloaded": return .configReloaded(quotas: try get("quotas"), budgets: try get("budgets"))
        case "quota_ok", "quota_warning", "quota_breach":
            let state = QuotaState(rawValue: String(kind.dropFirst("quota_".count)))!
            let size: SizeKind = container.contains(ContractKey("apparent")) ? .apparent : .allocated
            return .quota(
                state: state, path: try get("path"), size: size, used: try get(size.rawValue), limit: try get("limit"),
                effectiveLimit: try get("effective_limit"), rule: try get("rule"), level: try get("level"))
        case "level":
            return .level(
                from: try get("from"), to: try get("to"), free: try get("free"), total: try get("total"),
                rootAllocated: try get("root_allocated"))
        case "leftover":
            return .leftover(
                path: try get("path"), allocated: try get("allocated"), idleSeconds: try get("idle_seconds"),
                rule: try get("rule"))
        case "leftover_gone":
            return .leftoverGone(path: try get("path"), rule: try get("rule"), reason: try get("reason"))
        case "quota_forecast":
            return .forecast(
                path: try get("path"), secondsToBreach: try get("seconds_to_breach"),
                bytesPerSecond: try get("bytes_per_second"), rule: try get("rule"))
        case "hook_failed":
            return .hookFailed(
                hook: try get("hook"), failedEvent: try get("failed_event"), status: try optional("status"),
                signal: try optional("signal"), standardErrorTail: try get("stderr_tail"))
        case "subscribed":
            return .subscribed(
                capacity: try get("capacity"), version: try optional("version"), recent: try optional("recent"))
        case "dropped": return .dropped(count: try get("count"))
        case "registered":
            return .registered(
                name: try get("name"), paths: try get("paths"), timeoutMilliseconds: try get("timeout_ms"),
                version: try optional("version"))
        case "history_dropped": return .historyDropped(dropped: try get("dropped"))
        case "history_reset": return .historyReset(movedTo: try get("moved_to"), reason: try get("reason"))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: ContractKey("event"), in: container, debugDescription: "a kind read as other fields")
        }
    }
}
