import QuotaWatchTestSupport
import Testing

/// An overlayfs mounted below the root, in the daemon's private mount namespace, with its
/// lower, upper and work directories beside the root (`outside/`). Writing a lower file
/// through the overlay copies it up: its blocks, and its directories', are the upper ones
/// from then on. Every directory is compared with du, find and a scan, on the backend the
/// live tests run on (QUOTAWATCH_TEST_BACKEND).
@Suite(
    "overlayfs below the root",
    .enabled(if: OverlayMount.unavailableReason == nil, "\(OverlayMount.unavailableReason ?? "")"))
struct OverlayLiveTests {
    private let root = LiveFixture.root

    @Test("copy-ups through an overlay below the root are counted as du counts them")
    func copyUpsAreCounted() throws {
        let fixture = try LiveFixture()
        let lower = LiveFixture.outside / "lower"
        try fixture.tree.makeDirectories(lower / "d1" / "d2")
        try fixture.tree.makeDirectories(lower / "d3" / "d4" / "d5")
        for index in 1...3 {
            try fixture.tree.writeFile(lower / "d1" / "f\(index)", byteCount: 9_000 * index)
            try fixture.tree.writeFile(lower / "d1" / "d2" / "g\(index)", byteCount: 5_000)
            try fixture.tree.writeFile(lower / "d3" / "d4" / "d5" / "k\(index)", byteCount: 3_000)
        }
        try fixture.tree.makeDirectory(LiveFixture.outside / "upper")
        try fixture.tree.makeDirectory(LiveFixture.outside / "work")
        try fixture.tree.makeDirectory(root / "ov")
        try fixture.tree.writeFile(root / "plain", byteCount: 4_000)
        fixture.tree.writeBack()
        let daemon = try fixture.start(
            wrapper: MountNamespace.wrapper(root: fixture.rootPath, setup: OverlayMount.setup(at: "$R/ov")))
        var problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "at ready:\n\(problems.joined(separator: "\n"))")

        // Each write copies a lower file up, with the directories above it; then a file is
        // made in a copied-up directory, another removed (a whiteout), one only chmod'ed.
        try MountNamespace.inside(
            daemon,
            #"""
            cd "$R/ov" && head -c 30000 /dev/zero >> d1/f1 && head -c 70000 /dev/zero >> d3/d4/d5/k2 \
                && head -c 100 /dev/zero >> d1/d2/g3 && chmod 600 d1/f2 && head -c 12000 /dev/zero > d3/d4/new \
                && rm d1/d2/g1 && sync
            """#)
        problems = try MountNamespace.mismatches(fixture, daemon)
        #expect(problems.isEmpty, "after copy-ups:\n\(problems.joined(separator: "\n"))")

        if DaemonBackend.requested == "fanotify" {
            // overlayfs gives no file handles without nfs_export, so fanotify cannot key its
            // events: the subtree is polled, and the warning says which call failed and why.
            let degraded = daemon.events("degraded")
            #expect(!degraded.isEmpty, "no degraded event for the overlay\n\(daemon.transcript)")
            for event in degraded {
                let message = event.message ?? ""
                #expect(message.contains("name_to_handle_at: "), "\(message)")
                #expect(!message.contains("()"), "the degraded reason is empty: \(message)")
            }
        }
        try fixture.stopCleanly()
    }
}

/// Whether an overlayfs can be mounted in a private mount namespace here.
enum OverlayMount {
    static let unavailableReason: String? = {
        if let reason = MountNamespace.unavailableReason { return reason }
        let script = #"""
            d=$(mktemp -d) && mkdir "$d/l" "$d/u" "$d/w" "$d/m" \
                && mount -t overlay overlay -o "lowerdir=$d/l,upperdir=$d/u,workdir=$d/w" "$d/m" && umount "$d/m"
            r=$?; rm -rf "$d"; exit $r
            """#
        let arguments = ["--mount", "--propagation", "private", "sh", "-c", script]
        guard let probe = try? ProcessRunner.run("unshare", arguments) else { return "unshare could not be run" }
        guard probe.exitStatus == 0 else {
            return "cannot mount an overlayfs in a private mount namespace (needs root and overlay): \(probe.errorText)"
        }
        return nil
    }()

    /// The sh line that mounts the overlay of the fixture's `outside/lower` (upper and work
    /// beside it) at `place`.
    static func setup(at place: String) -> String {
        #"O="$R/../outside"; mount -t overlay overlay -o "lowerdir=$O/lower,upperdir=$O/upper,workdir=$O/work" "#
            + "\"\(place)\""
    }
}
