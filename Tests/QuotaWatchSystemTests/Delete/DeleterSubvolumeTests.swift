import Foundation
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

/// README, Limits: a shared writable mapping is matched by the device and inode
/// `/proc/PID/maps` prints. On a btrfs subvolume `stat` gives the subvolume's own anonymous
/// device and maps the file system's, so a mapping whose descriptor is closed is not seen
/// there, and the file it writes is removed. A btrfs image on a loop device, mounted for the
/// test, shows it.
@Suite("Deleter: a shared mapping on a btrfs subvolume")
struct DeleterSubvolumeTests {
    static let unavailableReason: String? = {
        guard DeleterWriterTests.python != nil else { return "needs python3 to play the writer" }
        guard geteuid() == 0 else { return "needs root to mount a btrfs image on a loop device" }
        for tool in ["mkfs.btrfs", "btrfs", "mount", "umount"] where ProcessRunner.findExecutable(tool) == nil {
            return "\(tool) is not installed (Debian: btrfs-progs, util-linux; scripts/lib/deps.sh test)"
        }
        let filesystems = (try? String(contentsOfFile: "/proc/filesystems", encoding: .utf8)) ?? ""
        guard filesystems.contains("btrfs") else {
            return "the kernel has no btrfs loaded (/proc/filesystems; modprobe btrfs)"
        }
        return nil
    }()

    /// `major:minor` as /proc/PID/maps prints a device (hex, at least two digits each).
    static func mapsDevice(_ device: UInt64) -> String {
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        return String(format: "%02x:%02x", major, minor)
    }

    @Test(
        "a file mapped shared and writable on a btrfs subvolume, its descriptor closed, is not seen as written (a documented limit)",
        .enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func mappingOnSubvolumeIsMissed() throws {
        let scratch = try ScratchDirectory()
        let image = scratch.file("btrfs.img")
        let mountPoint = scratch.file("mnt")
        try #require(mkdir(mountPoint, 0o755) == 0)
        let made = try ProcessRunner.run(
            "sh",
            ["-c", #"truncate -s 256M "$1" && mkfs.btrfs -q "$1" && mount -o loop "$1" "$2""#, "sh", image, mountPoint])
        try #require(made.exitStatus == 0, "could not make and mount a btrfs image: \(made)")
        defer { _ = try? ProcessRunner.run("umount", ["-l", scratch.file("mnt")]) }
        let subvolume = try ProcessRunner.run("btrfs", ["-q", "subvolume", "create", mountPoint + "/sub"])
        try #require(subvolume.exitStatus == 0, "\(subvolume)")

        let fixture = try DeleterFixture(root: mountPoint + "/sub/root", scratch: scratch)
        let identity = try fixture.makeFile(Array("mapped".utf8), bytes: 8192)
        let writer = try DeleterWriterTests.Writer(DeleterWriterTests.mappingWriter, fixture.rootPath + "/mapped")
        let processID = try #require(Int32(try writer.waitUntilReady()[1]))

        // The cause: the mapping names another device than stat does.
        // Read to its end: /proc files report a size of 0, and a one-shot read stops early.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/\(processID)/maps"))
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let shared = maps.split(separator: "\n").filter { $0.contains("rw-s") }
        let line = try #require(shared.first { $0.hasSuffix("/mapped") }, "no mapping of the file: \(shared)")
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        #expect(fields[1] == "rw-s" && fields[4] == "\(identity.inode)", "\(line)")
        #expect(fields[3] != Self.mapsDevice(identity.device), "maps shows stat's device now: \(line)")

        let outcome = try fixture.deleter().remove(
            Array("mapped".utf8), expecting: identity, journal: RecordingJournal())
        guard case .removed = outcome else {
            Issue.record("the mapping was seen on the subvolume (the limit is gone; fix the README): \(outcome)")
            return
        }
        #expect(try fixture.exists(Array("mapped".utf8)) == false)
        writer.finish()
    }
}
