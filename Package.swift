// swift-tools-version:6.2
import PackageDescription

// Every Swift target is built in Swift 6 language mode with warnings as errors.
// A release build carries the Swift runtime and Foundation inside its programs: loading them as
// shared libraries cost more CPU than the rest of a `status` or `--version` together (the
// dynamic linker resolving their symbols; docs/BENCHMARKS.md, "CLI start-up"). Every module is
// compiled against the static libraries' interfaces, and each program links them with lld,
// because GNU ld warns about a libc call inside the toolchain's static Foundation.
let staticInRelease: [SwiftSetting] = [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
let linkedStaticInRelease: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-use-ld=lld"], .when(configuration: .release))
]
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)] + staticInRelease

let package = Package(
    name: "QuotaWatch",
    products: [
        .executable(name: "quotawatch", targets: ["quotawatch"]),
        .executable(name: "quotawatch-treegen", targets: ["quotawatch-treegen"]),
    ],
    targets: [
        // libinotifytools from Debian's libinotifytools0-dev, which ships no .pc file:
        // the module map links it directly.
        .systemLibrary(name: "CInotifyTools", path: "Sources/CInotifyTools"),
        // Inline wrappers for glibc entry points that Swift's Glibc module hides
        // behind _GNU_SOURCE (getdents64, statx).
        .target(name: "CQuotaWatchShims", path: "Sources/CQuotaWatchShims"),
        // The only Swift code that calls Glibc. It speaks in Core's plain values (FileStatus,
        // DirectoryListing), as NIOPosix speaks in NIOCore's.
        .target(
            name: "QuotaWatchSystem",
            dependencies: ["CQuotaWatchShims", "CInotifyTools", "CSystemd", "CMicroHTTPD", "QuotaWatchCore"],
            // Debug builds (and so `swift test`) get the fault driver the tests arm
            // (Faults/FaultPlan.swift); a release build has no trace of it.
            swiftSettings: strict + [
                .strictMemorySafety(), .define("QUOTAWATCH_FAULT_INJECTION", .when(configuration: .debug)),
            ]
        ),
        // Pure logic: tallies, sizes, names, rendering. No kernel.
        .target(name: "QuotaWatchCore", swiftSettings: strict),
        // Pure policy: globs, quotas, levels, budgets, forecasts, leftover rules, events.
        .target(name: "QuotaWatchPolicy", dependencies: ["QuotaWatchCore"], swiftSettings: strict),
        // libyaml from Debian's libyaml-dev, for the config file.
        .systemLibrary(name: "CYAML", path: "Sources/CYAML"),
        // ncursesw from Debian's libncurses-dev, for the `watch` view and `clean`'s selection.
        .systemLibrary(name: "CNcursesW", path: "Sources/CNcursesW"),
        // The curses screen: a full-screen ncursesw screen that draws the view's styled lines
        // (Sources/QuotaWatchView/Terminal) and gives the terminal back on every way out.
        .target(
            name: "QuotaWatchTerminal",
            dependencies: ["CNcursesW", "QuotaWatchCore", "QuotaWatchSystem", "QuotaWatchView"],
            swiftSettings: strict
        ),
        // What the terminal shows, pure, no curses: the `watch` view's model and layout (frames,
        // keys, rows, bars, event lines), the clean page's state machine (`CleanPicker`), and the
        // toolkit both draw with (styled lines, display widths, list cursor, overlays, keys).
        // QuotaWatchTerminal draws what they return.
        .target(name: "QuotaWatchView", dependencies: ["QuotaWatchCore", "QuotaWatchPolicy"], swiftSettings: strict),
        // SQLite from Debian's libsqlite3-dev, for the event history.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // libmicrohttpd from Debian's libmicrohttpd-dev, for the Prometheus endpoint.
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD"),
        // libsystemd from Debian's libsystemd-dev, for sd_notify.
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd"),
        // The config file: libyaml's events into a node tree, decoded into a PolicyConfig.
        .target(
            name: "QuotaWatchConfig",
            dependencies: ["CYAML", "QuotaWatchPolicy", "QuotaWatchCore"],
            swiftSettings: strict + [.strictMemorySafety()]
        ),
        // Wiring: crawler, inotify engine, control socket.
        .target(
            name: "QuotaWatchEngine",
            dependencies: ["QuotaWatchCore", "QuotaWatchSystem", "QuotaWatchPolicy"],
            swiftSettings: strict
        ),
        // Cleaning, above the engine as History is: the cleanup participant (triggers, plans, the
        // runner, the built-in cleaners), the audit log and the audited deleter over System's
        // Deleter, the manual clean, and the leftover participant. It reaches the engine through
        // EngineParticipant and the narrow surfaces LiveTree and PolicyMonitor make public.
        .target(
            name: "QuotaWatchCleaning",
            dependencies: ["QuotaWatchEngine", "QuotaWatchCore", "QuotaWatchSystem", "QuotaWatchPolicy"],
            swiftSettings: strict
        ),
        // The event history: an EngineObserver writing to SQLite off the engine thread, and the
        // reads of `quotawatch history`.
        .target(
            name: "QuotaWatchHistory",
            dependencies: [
                "CSQLite", "QuotaWatchEngine", "QuotaWatchCleaning", "QuotaWatchCore", "QuotaWatchSystem",
                "QuotaWatchPolicy",
            ],
            swiftSettings: strict + [.strictMemorySafety()]
        ),
        .executableTarget(
            name: "quotawatch",
            dependencies: [
                "QuotaWatchCore", "QuotaWatchSystem", "QuotaWatchEngine", "QuotaWatchCleaning", "QuotaWatchPolicy",
                "QuotaWatchConfig", "QuotaWatchHistory", "QuotaWatchView", "QuotaWatchTerminal",
            ],
            swiftSettings: strict, linkerSettings: linkedStaticInRelease
        ),
        // Builds the sample and benchmark trees for scripts/demo and scripts/bench.
        .executableTarget(name: "quotawatch-treegen", swiftSettings: strict, linkerSettings: linkedStaticInRelease),
        // A small program that deletes through the Deleter and the audit log, for the tests
        // that need another process: kill -9 at random moments, a private mount namespace.
        .executableTarget(
            name: "quotawatch-cleanup-probe",
            dependencies: ["QuotaWatchCleaning", "QuotaWatchEngine", "QuotaWatchSystem", "QuotaWatchCore"],
            path: "Tests/QuotaWatchCleanupProbe",
            swiftSettings: strict, linkerSettings: linkedStaticInRelease
        ),
        // Temp trees with raw-byte names, the du oracle, and a runner for the built CLI.
        .target(name: "QuotaWatchTestSupport", path: "Tests/QuotaWatchTestSupport", swiftSettings: strict),
        // The cleanup test doubles (a manual clock, gates, a recording removal backend, scripted
        // cleaners), for the cleaning tests and the engine's cleanup step tests.
        .target(
            name: "QuotaWatchCleaningTestSupport",
            dependencies: [
                "QuotaWatchCleaning", "QuotaWatchEngine", "QuotaWatchCore", "QuotaWatchSystem", "QuotaWatchPolicy",
            ],
            path: "Tests/QuotaWatchCleaningTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuotaWatchCoreTests", dependencies: ["QuotaWatchCore", "QuotaWatchView", "QuotaWatchTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "QuotaWatchTerminalTests", dependencies: ["QuotaWatchTerminal", "QuotaWatchView", "QuotaWatchCore"],
            swiftSettings: strict),
        .testTarget(
            name: "QuotaWatchViewTests", dependencies: ["QuotaWatchView", "QuotaWatchPolicy", "QuotaWatchCore"],
            swiftSettings: strict),
        .testTarget(
            name: "QuotaWatchPolicyTests",
            dependencies: ["QuotaWatchPolicy", "QuotaWatchConfig", "QuotaWatchCore", "QuotaWatchTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuotaWatchSystemTests",
            dependencies: ["QuotaWatchSystem", "QuotaWatchTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuotaWatchEngineTests",
            dependencies: [
                "QuotaWatchEngine", "QuotaWatchCleaning", "QuotaWatchCore", "QuotaWatchSystem", "QuotaWatchPolicy",
                "QuotaWatchTestSupport", "QuotaWatchCleaningTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuotaWatchCleaningTests",
            dependencies: [
                "QuotaWatchCleaning", "QuotaWatchEngine", "QuotaWatchCore", "QuotaWatchSystem", "QuotaWatchPolicy",
                "QuotaWatchTestSupport", "QuotaWatchCleaningTestSupport", "quotawatch-cleanup-probe",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuotaWatchCLITests",
            dependencies: ["quotawatch", "QuotaWatchTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuotaWatchHistoryTests",
            dependencies: [
                "QuotaWatchHistory", "QuotaWatchEngine", "QuotaWatchCleaning", "QuotaWatchCore", "QuotaWatchPolicy",
                "QuotaWatchTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuotaWatchLiveTests",
            dependencies: ["quotawatch", "QuotaWatchTestSupport", "QuotaWatchHistory", "QuotaWatchCleaning"],
            swiftSettings: strict
        ),
    ]
)
