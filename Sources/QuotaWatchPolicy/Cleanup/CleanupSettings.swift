import QuotaWatchCore

/// One built-in cleaner as the config's `cleaners:` list configures it. A run calls them in
/// this order.
package enum CleanerSpec: Sendable, Hashable {
    /// Removes what the leftover rules find (rules marked `protect: true` excepted).
    case leftovers(name: String)
    /// Evicts from a quota directory above its target (`target` × its effective limit) until
    /// it is under it. `path` limits it to the quota directories matching the glob; nil is
    /// every quota directory.
    case evict(name: String, path: PathGlob?, order: EvictionOrder, target: Double)
    /// Trims each directory matching `path` (WebKit's `NetworkCache`) to `limit`, oldest mtime first.
    case trim(name: String, path: PathGlob, limit: UInt64)
    /// Removes the files matching `path` (or below a matching directory) last modified more
    /// than `age` ago.
    case expire(name: String, path: PathGlob, age: Duration)
    /// Runs a program (argv, no shell) with the context as JSON on stdin; killed after `timeout`.
    case command(name: String, argv: [[UInt8]], timeout: Duration)
    /// Where the cleaners that running programs register over the control socket run, in
    /// registration order; `timeout` is their wait for a reply unless a registration names its own.
    case registered(timeout: Duration?)

    package var name: String {
        switch self {
        case .leftovers(let name), .evict(let name, _, _, _), .trim(let name, _, _), .expire(let name, _, _),
            .command(let name, _, _):
            name
        case .registered: "registered"
        }
    }

    /// The config's `kind:` of each case.
    package static let kinds = ["leftovers", "evict", "webkit-trim", "expire", "command", "registered"]

    package var kind: String {
        switch self {
        case .leftovers: "leftovers"
        case .evict: "evict"
        case .trim: "webkit-trim"
        case .expire: "expire"
        case .command: "command"
        case .registered: "registered"
        }
    }

    /// Where WebKit keeps its HTTP cache in an app's container.
    package static let webKitNetworkCache = "Library/Caches/WebKit/NetworkCache"
}

/// Where the app's version comes from (`app_version:`).
package enum AppVersionSetting: Sendable, Hashable {
    case fixed(String)
    /// An Info.plist whose `CFBundleShortVersionString` is the version.
    case infoPlist([UInt8])
}

/// The cleaning part of the config: which cleaners run in which order, the periodic
/// fallback, the app version and the extra protected globs.
package struct CleanupSettings: Sendable, Hashable {
    /// In run order. Without a `cleaners:` section: leftovers, then evict (every quota
    /// directory, oldest mtime first, down to 80 %).
    package var cleaners: [CleanerSpec] = CleanupSettings.defaultCleaners
    package var periodic = PeriodicCleanupSchedule()
    package var appVersion: AppVersionSetting?
    /// Never removed, nor anything below a match.
    package var protect: [PathGlob] = []

    package init() {}

    package static let defaultTargetRatio = 0.8

    package static let defaultCleaners: [CleanerSpec] = [
        .leftovers(name: "leftovers"),
        .evict(name: "evict", path: nil, order: .oldestModified, target: defaultTargetRatio),
    ]

    /// Whether any cleaner asks for `order: lru` (the engine then watches opens).
    package var wantsOpens: Bool {
        cleaners.contains { if case .evict(_, _, .leastRecentlyUsed, _) = $0 { true } else { false } }
    }
}
