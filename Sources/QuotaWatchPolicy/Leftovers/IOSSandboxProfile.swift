/// Which built-in profile applies.
package enum ProfileChoice: String, Sendable, Hashable, CaseIterable {
    /// `ios-sandbox` when ROOT holds `Documents/`, `Library/` and `tmp/`.
    case auto
    case iosSandbox = "ios-sandbox"
    case none
}

/// The built-in `ios-sandbox` profile: the leftovers of an iOS app's data container.
package enum IOSSandboxProfile {
    /// The directories whose presence at ROOT turns the profile on under `profile: auto`.
    package static let markerDirectories = ["Documents", "Library", "tmp"]

    package static func applies(choice: ProfileChoice, rootDirectories: Set<String>) -> Bool {
        switch choice {
        case .auto: markerDirectories.allSatisfy(rootDirectories.contains)
        case .iosSandbox: true
        case .none: false
        }
    }

    /// The profile's rules, with `age` (the config's `leftovers.age`) for idle downloads.
    package static func rules(age: Duration) -> [LeftoverRule] {
        // The globs are constants; a failure here is a bug caught by every test run.
        func globs(_ texts: String...) -> [PathGlob] { texts.map { try! PathGlob($0) } }
        return [
            // NSURLSession's partial downloads: what a resumed download needs while it runs,
            // disk lost for good once its app forgot it.
            LeftoverRule(
                name: "cfnetwork-download",
                paths: globs(
                    "tmp/CFNetworkDownload_*.tmp",
                    "Library/Caches/com.apple.nsurlsessiond/Downloads/*/CFNetworkDownload_*.tmp"),
                kind: .idleFile(age: age)),
            // dyld's closure caches: a new one per app build; only the newest is used.
            LeftoverRule(name: "dyld-cache", paths: globs("tmp/com.apple.dyld/*"), kind: .keepNewest(keep: 1)),
            // Files other apps handed over ("Open in…"); the app was meant to move them out.
            LeftoverRule(
                name: "documents-inbox", paths: globs("Documents/Inbox/*"), kind: .olderThan(age: .seconds(7 * 86_400))),
            // cfprefsd writes `name.plist` atomically through `name.plist.XXXXXXX` (a random
            // seven-character suffix); an interrupted save leaves the temporary behind.
            LeftoverRule(
                name: "temporary-plist", paths: globs("Library/Preferences/*.plist.*"), kind: .olderThan(age: age)),
            // WebKit's HTTP cache grows without an app-visible limit.
            LeftoverRule(
                name: "webkit-network-cache", paths: globs("Library/Caches/WebKit/NetworkCache"),
                kind: .directoryOver(limit: 100_000_000)),
        ]
    }
}
