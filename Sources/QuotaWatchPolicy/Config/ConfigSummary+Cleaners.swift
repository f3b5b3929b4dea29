import QuotaWatchCore

/// The cleaning part of `check-config`: the cleaners in run order, the periodic fallback,
/// the app version and the protect globs.
extension ConfigSummary {
    static func cleanerWhat(_ cleaner: CleanerSpec) -> (path: String, detail: String) {
        switch cleaner {
        case .leftovers: ("(leftover rules)", "-")
        case .evict(_, let path, let order, let target):
            (path?.text ?? "(every quota directory)", "order \(order.rawValue), down to \(ShareText.format(target))")
        case .trim(_, let path, let limit): (path.text, "down to \(SizeText.exact(limit)), oldest first")
        case .expire(_, let path, let age): (path.text, "older than " + TimeSpan.format(age))
        case .command(_, let argv, let timeout):
            (argv.map { HumanText.name($0) }.joined(separator: " "), "timeout " + TimeSpan.format(timeout))
        case .registered(let timeout):
            (
                "(their own paths)",
                "programs registered on the control socket, in registration order; reply within "
                    + TimeSpan.format(timeout ?? .seconds(30))
            )
        }
    }

    static func cleanersTable(_ settings: CleanupSettings) -> String {
        var text = "\nCLEANERS (in run order; they delete only under 'run --clean')\n"
        text += columns(
            [["NAME", "KIND", "WHAT", "HOW"]]
                + settings.cleaners.map { cleaner in
                    let what = cleanerWhat(cleaner)
                    return [cleaner.name, cleaner.kind, what.path, what.detail]
                })
        let periodic = settings.periodic
        text += "  periodic run: normal every \(TimeSpan.format(periodic.normal)), warning every "
        text += "\(TimeSpan.format(periodic.warning)), critical every \(TimeSpan.format(periodic.critical))\n"
        switch settings.appVersion {
        case nil: text += "  app version: none\n"
        case .fixed(let version): text += "  app version: \(HumanText.escaped(version))\n"
        case .infoPlist(let path): text += "  app version: CFBundleShortVersionString of \(HumanText.name(path))\n"
        }
        text +=
            "  protect: "
            + (settings.protect.isEmpty
                ? "(none)" : settings.protect.map { HumanText.escaped($0.text) }.joined(separator: " "))
        text += " (and Documents/, except the documents-inbox rule)\n"
        return text
    }

    static func cleanersJSON(_ settings: CleanupSettings) -> PolicyJSON {
        let cleaners: [PolicyJSON] = settings.cleaners.map { cleaner in
            var fields: [String: PolicyJSON] = ["name": .string(cleaner.name), "kind": .string(cleaner.kind)]
            switch cleaner {
            case .leftovers: break
            case .evict(_, let path, let order, let target):
                fields["path"] = path.map { .string($0.text) } ?? .null
                fields["order"] = .string(order.rawValue)
                fields["target"] = .number(target)
            case .trim(_, let path, let limit):
                fields["path"] = .string(path.text)
                fields["limit"] = .unsigned(limit)
            case .expire(_, let path, let age):
                fields["path"] = .string(path.text)
                fields["age"] = .number(age.secondsValue)
            case .command(_, let argv, let timeout):
                fields["command"] = .array(argv.map { .string(EscapedName.string($0)) })
                fields["timeout"] = .number(timeout.secondsValue)
            case .registered(let timeout):
                fields["timeout"] = timeout.map { .number($0.secondsValue) } ?? .null
            }
            return .object(fields)
        }
        let appVersion: PolicyJSON
        switch settings.appVersion {
        case nil: appVersion = .null
        case .fixed(let version): appVersion = .string(version)
        case .infoPlist(let path): appVersion = .object(["file": .string(EscapedName.string(path))])
        }
        let periodic = settings.periodic
        return .object([
            "cleaners": .array(cleaners),
            "periodic": .object([
                "normal": .number(periodic.normal.secondsValue), "warning": .number(periodic.warning.secondsValue),
                "critical": .number(periodic.critical.secondsValue),
            ]),
            "app_version": appVersion,
            "protect": .array(settings.protect.map { .string($0.text) }),
        ])
    }
}
