import QuotaWatchCore

/// An event of the policy layer, as it goes on the `--events jsonl` stream and to hooks.
package struct PolicyEvent: Sendable, Hashable {
    package enum Detail: Sendable, Hashable {
        /// A quota directory entered `state`: `quota_warning`, `quota_breach` or `quota_ok`.
        /// `used` is the size the rule counts (its `size`), `limit` the rule's limit (a budget
        /// group's whole budget), `effectiveLimit` the limit in force now.
        case quota(
            state: QuotaState, path: [UInt8], used: UInt64, size: SizeKind, limit: UInt64, effectiveLimit: UInt64,
            rule: String, level: DiskLevel)
        case level(from: DiskLevel, to: DiskLevel, free: UInt64, total: UInt64, rootAllocated: UInt64)
        case leftover(path: [UInt8], allocated: UInt64, idle: Duration, rule: String)
        /// A file reported as a `leftover` is no longer one: `reason` says why (``LeftoverEnd``).
        /// What resolves the leftover's alert, whoever removed it (a cleaner, the app, a user).
        case leftoverGone(path: [UInt8], rule: String, reason: LeftoverEnd)
        case forecast(path: [UInt8], secondsToBreach: Double, bytesPerSecond: Double, rule: String)
        /// A hook run failed: `status` is its exit status, `signal` the signal that ended it
        /// (a timeout kill included); `failedEvent` the kind of event it was run for.
        case hookFailed(hook: String, failedEvent: String, status: Int32?, signal: Int32?, standardErrorTail: String)
    }

    package var detail: Detail
    package var time: WallTime

    package init(_ detail: Detail, time: WallTime) {
        self.detail = detail
        self.time = time
    }

    /// Every kind an event can have, as hooks name them in `events:`.
    package static let kinds = [
        "quota_warning", "quota_breach", "quota_ok", "level", "leftover", "leftover_gone", "quota_forecast",
        "hook_failed",
    ]

    package var kind: String {
        switch detail {
        case .quota(let state, _, _, _, _, _, _, _):
            switch state {
            case .ok: "quota_ok"
            case .warning: "quota_warning"
            case .breach: "quota_breach"
            }
        case .level: "level"
        case .leftover: "leftover"
        case .leftoverGone: "leftover_gone"
        case .forecast: "quota_forecast"
        case .hookFailed: "hook_failed"
        }
    }

    package var path: [UInt8]? {
        switch detail {
        case .quota(_, let path, _, _, _, _, _, _), .leftover(let path, _, _, _), .leftoverGone(let path, _, _),
            .forecast(let path, _, _, _):
            path
        case .level, .hookFailed: nil
        }
    }

    /// The event line's shape (``ContractEvent``). `root` is the daemon's ROOT, absolute and
    /// escaped as paths are (``EscapedName``): every event says whose it is, so two daemons'
    /// events never mix downstream. It is a parameter, not a field of the value, because the
    /// policy layer does not know its root; the engine gives it where it encodes.
    package func contract(root: String) -> ContractEvent {
        let payload: ContractEvent.Payload
        switch detail {
        case .quota(let state, let path, let used, let size, let limit, let effectiveLimit, let rule, let level):
            payload = .quota(
                state: state, path: EscapedName.string(path), size: size, used: used, limit: limit,
                effectiveLimit: effectiveLimit, rule: rule, level: level)
        case .level(let from, let to, let free, let total, let rootAllocated):
            payload = .level(from: from, to: to, free: free, total: total, rootAllocated: rootAllocated)
        case .leftover(let path, let allocated, let idle, let rule):
            payload = .leftover(
                path: EscapedName.string(path), allocated: allocated, idleSeconds: idle.components.seconds, rule: rule)
        case .leftoverGone(let path, let rule, let reason):
            payload = .leftoverGone(path: EscapedName.string(path), rule: rule, reason: reason.rawValue)
        case .forecast(let path, let seconds, let rate, let rule):
            // A sparse file can make a rate of 10²² B/s: clamped, never a trap.
            payload = .forecast(
                path: EscapedName.string(path), secondsToBreach: Saturating.int64(seconds.rounded()),
                bytesPerSecond: Saturating.int64(rate.rounded()), rule: rule)
        case .hookFailed(let hook, let failedEvent, let status, let signal, let tail):
            payload = .hookFailed(
                hook: hook, failedEvent: failedEvent, status: status.map(Int64.init), signal: signal.map(Int64.init),
                standardErrorTail: tail)
        }
        return ContractEvent(payload, root: root, time: time.iso8601)
    }

    /// The event's fields, `event`, `time` and `root` included (``ContractEvent/fields``).
    package func fields(root: String) -> [String: PolicyJSON] { contract(root: root).fields }

    /// The JSON line, without its newline; keys sorted.
    package func jsonLine(root: String) -> String { ContractJSON.encodedString(contract(root: root)) }

    /// What a hook receives: the JSON line on stdin, and each field as
    /// `QUOTAWATCH_<FIELD IN CAPITALS>` (`QUOTAWATCH_EVENT` first, then in key order:
    /// `QUOTAWATCH_ROOT` among them).
    /// Numbers are written as in the JSON, null as empty, and text (paths, rules, a failed
    /// hook's stderr) as people see it (``HumanText``): one line, every control and direction
    /// character as `\xNN`, so a name cannot forge a line or a field of what a hook prints.
    /// The path's exact bytes go to `QUOTAWATCH_PATH_RAW`, added where the hook is started
    /// (an environment string can hold any byte but NUL; this type holds text).
    package func hookEvent(root: String) -> HookEvent {
        let fields = fields(root: root)
        var environment: [(name: String, value: String)] = [("QUOTAWATCH_EVENT", kind)]
        for key in fields.keys.sorted() where key != "event" {
            let value: String
            switch fields[key]! {
            case .string(let text): value = HumanText.escaped(text)
            case .null: value = ""
            case let other: value = other.encoded
            }
            environment.append(("QUOTAWATCH_" + key.uppercased(), value))
        }
        var rule: String?
        if case .string(let text)? = fields["rule"] { rule = text }
        return HookEvent(
            kind: kind, path: path, rule: rule, json: ContractJSON.encode(contract(root: root)),
            environment: environment)
    }
}

/// Why a reported leftover stopped being one (`leftover_gone`'s `reason`).
package enum LeftoverEnd: String, Sendable, Hashable {
    /// The name is gone: removed (by a cleaner or anyone), or renamed away.
    case removed
    /// The file was written again: it is in use, not left over.
    case written
    /// It no longer matches an idle-file rule (it is no longer a regular file, say).
    case unmatched
}
