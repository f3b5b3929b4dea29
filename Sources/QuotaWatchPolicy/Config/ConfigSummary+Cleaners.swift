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

    static func cleanupDocument(_ settings: CleanupSettings) -> ConfigSummaryDocument.Cleanup {
        let cleaners = settings.cleaners.map { cleaner in
            let kind: ConfigSummaryDocument.Cleaner.Kind
            switch cleaner {
            case .leftovers: kind = .leftovers
            case .evict(_, let path, let order, let target):
                kind = .evict(path: path?.text, order: order.rawValue, target: ContractNumber(target))
            case .trim(_, let path, let limit): kind = .trim(path: path.text, limit: limit)
            case .expire(_, let path, let age): kind = .expire(path: path.text, age: ContractNumber(age.secondsValue))
            case .command(_, let argv, let timeout):
                kind = .command(
                    command: argv.map { EscapedName.string($0) }, timeout: ContractNumber(timeout.secondsValue))
            case .registered(let timeout): kind = .registered(timeout: timeout.map { ContractNumber($0.secondsValue) })
            }
            return ConfigSummaryDocument.Cleaner(name: cleaner.name, kind: kind)
        }
        let appVersion: ConfigSummaryDocument.Cleanup.AppVersion?
        switch settings.appVersion {
        case nil: appVersion = nil
        case .fixed(let version): appVersion = .fixed(version)
        case .infoPlist(let path): appVersion = .infoPlist(file: EscapedName.string(path))
        }
        let periodic = settings.periodic
        return ConfigSummaryDocument.Cleanup(
            cleaners: cleaners,
            periodic: .init(
                normal: ContractNumber(periodic.normal.secondsValue),
                warning: ContractNumber(periodic.warning.secondsValue),
                critical: ContractNumber(periodic.critical.secondsValue)),
            appVersion: appVersion, protect: settings.protect.map(\.text))
    }
}
