import QuotaWatchCore
import QuotaWatchPolicy

/// The cleaning keys of the config: `cleaners:` (in run order), `periodic:`, `app_version:`
/// and `protect:`. Errors point at the node, as everywhere in the loader.
extension PolicyConfigLoader {
    static let cleanupTopKeys = ["cleaners", "periodic", "app_version", "protect"]

    static func cleanup(_ top: Mapping) throws(ConfigError) -> CleanupSettings {
        var settings = CleanupSettings()
        if let field = top["cleaners"] {
            settings.cleaners = []
            for item in try field.list() {
                let cleaner = try cleaner(item)
                if settings.cleaners.contains(where: { $0.name == cleaner.name }) {
                    throw item.error(
                        "a second cleaner named '\(cleaner.name)'; give each its own 'name' (the summary reports by name)"
                    )
                }
                settings.cleaners.append(cleaner)
            }
        }
        if let field = top["periodic"] {
            let each = try field.mapping(allowed: DiskLevel.allCases.map(\.rawValue))
            for level in DiskLevel.allCases {
                guard let value = each[level.rawValue] else { continue }
                let period = try value.duration(in: ValueRanges.periodicCleanup)
                switch level {
                case .normal: settings.periodic.normal = period
                case .warning: settings.periodic.warning = period
                case .critical: settings.periodic.critical = period
                }
            }
        }
        if let field = top["app_version"] {
            if case .mapping = field.node.content {
                let map = try field.mapping(allowed: ["file"])
                let file = try map.required(
                    "file", what: "the bundle's Info.plist, whose CFBundleShortVersionString is read")
                let path = try file.path()
                guard path.first == UInt8(ascii: "/") else {
                    throw file.error("'\(HumanText.name(path))' is relative; give the Info.plist's absolute path")
                }
                settings.appVersion = .infoPlist(path)
            } else {
                let text = try field.text(expecting: "a version string, or {file: /path/to/Info.plist}")
                settings.appVersion = .fixed(text)
            }
        }
        for item in try top["protect"]?.list(singleAllowed: true) ?? [] { settings.protect.append(try item.glob()) }
        return settings
    }

    private static func cleaner(_ field: Field) throws(ConfigError) -> CleanerSpec {
        // `- leftovers` is short for `- kind: leftovers`.
        if case .scalar = field.node.content {
            let kind = try field.choice(CleanerSpec.kinds)
            return try cleaner(kind: kind, map: Mapping(field: field, values: [:]), field: field)
        }
        let kindField = try field.mapping(allowed: ["kind"] + allCleanerKeys).required(
            "kind", what: "one of " + CleanerSpec.kinds.joined(separator: ", "))
        let kind = try kindField.choice(CleanerSpec.kinds)
        return try cleaner(kind: kind, map: try field.mapping(allowed: ["kind"] + keys(of: kind)), field: field)
    }

    private static let allCleanerKeys = ["name", "path", "order", "target", "limit", "age", "command", "timeout"]

    private static func keys(of kind: String) -> [String] {
        switch kind {
        case "evict": ["name", "path", "order", "target"]
        case "webkit-trim": ["name", "path", "limit"]
        case "expire": ["name", "path", "age"]
        case "command": ["name", "command", "timeout"]
        case "registered": ["timeout"]
        default: ["name"]
        }
    }

    private static func cleaner(kind: String, map: Mapping, field: Field) throws(ConfigError) -> CleanerSpec {
        let name = try map["name"]?.text(expecting: "a cleaner name") ?? kind
        switch kind {
        case "evict":
            let order = EvictionOrder(
                rawValue: try map["order"]?.choice(EvictionOrder.allCases.map(\.rawValue)) ?? "mtime")!
            var target = CleanupSettings.defaultTargetRatio
            if let value = map["target"] {
                target = try value.ratio(in: ValueRanges.evictionTarget)
            }
            return .evict(name: name, path: try map["path"]?.glob(), order: order, target: target)
        case "webkit-trim":
            let path = try map["path"]?.glob() ?? (try! PathGlob(CleanerSpec.webKitNetworkCache))
            return .trim(name: name, path: path, limit: try map["limit"]?.size() ?? 100_000_000)
        case "expire":
            let path = try map.required("path", what: "the files (or directories) to expire, such as 'tmp/*'").glob()
            let ageField = try map.required("age", what: "how old a file must be, such as 7d")
            let age = try ageField.duration(in: ValueRanges.expireAge)
            return .expire(name: name, path: path, age: age)
        case "command":
            let commandField = try map.required("command", what: "the program and its arguments, as a list")
            guard case .sequence = commandField.node.content else {
                throw commandField.error(
                    "expected the command as a list of words, such as [\"/usr/local/bin/clean-cache\"] "
                        + "(no shell runs it), found \(commandField.node.kindDescription)")
            }
            var argv: [[UInt8]] = []
            for item in try commandField.list() { argv.append(Array(try item.text(expecting: "a word").utf8)) }
            guard let program = argv.first, !program.isEmpty else {
                throw commandField.error("the command is empty; give at least the program to run")
            }
            var timeout: Duration = .seconds(60)
            if let value = map["timeout"] {
                timeout = try value.duration(in: ValueRanges.timeout)
            }
            return .command(name: map["name"] == nil ? "command" : name, argv: argv, timeout: timeout)
        case "registered":
            return .registered(timeout: try map["timeout"]?.duration(in: ValueRanges.timeout))
        default:
            return .leftovers(name: name)
        }
    }
}
