import Glibc
import QuotaWatchTestSupport

/// Mounts appearing and vanishing below the root, made in the daemon's private mount
/// namespace (``MountNamespace``): a tmpfs, a bind mount of a directory of the model (the
/// same directory then at two places, changed by every other operation through its first
/// name), and a bind mount of the root below itself (a cycle). Each is mounted on a fresh
/// directory of the root that the model does not hold, with a file that the mount hides, so
/// no other operation ever touches a mount point; and the test process, outside the
/// namespace, sees none of the mounts. The daemon, the reference scan and du see them all.
struct MountOperations {
    /// The daemon, whose mount namespace the mounts are made in.
    let processID: pid_t
    var active: [Active] = []

    struct Active {
        var point: TreePath
        var kind: Kind
        /// What a bind mount shows; the root itself makes it a cycle like ``Kind/cycle``.
        var source: TreePath?
    }

    enum Kind: String {
        case tmpfs = "tmpfs"
        case bind = "bind mount"
        case cycle = "bind mount of the root below itself"
    }

    /// Why these operations cannot run here, or nil.
    static var unavailableReason: String? { MountNamespace.unavailableReason }

    /// Whether a directory is shown at two places now: the daemon then needs fewer watches
    /// than there are directories.
    var sharesDirectories: Bool { active.contains { $0.kind == .bind } }
}

extension RandomOperations {
    /// Mounts something on a fresh directory of the root, or unmounts one of the mounts.
    mutating func mountOrUnmount() throws {
        guard let mounts else { return try createFile() }
        if !mounts.active.isEmpty && (mounts.active.count >= 4 || random(0..<2) == 0) {
            try unmount(at: random(0..<mounts.active.count))
        } else {
            try mount()
        }
    }

    private mutating func mount() throws {
        guard var mounts else { return }
        serial += 1
        let point = root.appending("mnt-\(serial)")
        try tree.makeDirectory(point)
        try tree.writeFile(point / "hidden", byteCount: randomSize())
        try tree.writeBack(point / "hidden")
        let kind: MountOperations.Kind = [.tmpfs, .tmpfs, .bind, .bind, .cycle][random(0..<5)]
        let size = randomSize()
        var source: TreePath?
        switch kind {
        case .tmpfs:
            try inNamespace(
                #"mount -t tmpfs -o size=16m none "$1" && head -c "$2" /dev/zero > "$1/f" && mkdir "$1/d""#,
                [tree.absoluteBytes(point), Array("\(size)".utf8)])
            note("mount tmpfs", point)
        case .bind:
            let shown = pick(directories)
            source = shown
            try inNamespace(#"mount --bind "$2" "$1""#, [tree.absoluteBytes(point), tree.absoluteBytes(shown)])
            note("bind mount", point, "of \(shown.reportPath)")
        case .cycle:
            try inNamespace(#"mount --bind "$2" "$1""#, [tree.absoluteBytes(point), tree.absoluteBytes(root)])
            note("bind mount of the root", point)
        }
        mounts.active.append(MountOperations.Active(point: point, kind: kind, source: source))
        self.mounts = mounts
    }

    /// `umount` must succeed: the daemon may hold a descriptor on the mount only while it works
    /// in it, so after a sync (the daemon idle) a second attempt must not find it busy.
    mutating func unmount(at index: Int) throws {
        guard var mounts else { return }
        let mount = mounts.active.remove(at: index)
        let point = [tree.absoluteBytes(mount.point)]
        if try runInNamespace(#"umount "$1""#, point).exitStatus != 0 {
            try catchUp?()
            try inNamespace(#"umount "$1""#, point)
        }
        try tree.removeSubtree(mount.point)
        self.mounts = mounts
        note("umount \(mount.kind.rawValue)", mount.point)
    }

    /// Unmounts every cycle (a bind mount of the root, whichever kind drew it: a plain bind
    /// mount may pick the root as its source), and every bind mount of a directory removed
    /// since (it can no longer be listed): find and du, behind the final du check, stop at them
    /// with an error ("File system loop detected").
    mutating func unmountUnreadable() throws {
        var index = 0
        while let mounts, index < mounts.active.count {
            let mount = mounts.active[index]
            let listable = try runInNamespace(#"ls -- "$1" > /dev/null"#, [tree.absoluteBytes(mount.point)])
            if mount.kind == .cycle || mount.source == root || listable.exitStatus != 0 {
                try unmount(at: index)
            } else {
                index += 1
            }
        }
    }

    private func inNamespace(_ script: String, _ arguments: [[UInt8]]) throws {
        let result = try runInNamespace(script, arguments)
        guard result.exitStatus == 0 else {
            throw DaemonError("in the daemon's mount namespace: \(script)", result: result)
        }
    }

    private func runInNamespace(_ script: String, _ arguments: [[UInt8]]) throws -> ProcessResult {
        guard let mounts else { throw DaemonError("no mount namespace") }
        let command = ["-t", "\(mounts.processID)", "-m", "sh", "-c", script, "sh"].map { Array($0.utf8) }
        return try ProcessRunner.run("nsenter", command + arguments)
    }
}
