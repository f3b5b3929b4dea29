import QuotaWatchCore
import Testing

@Suite("mountinfo")
struct MountEntryTests {
    @Test("lines are parsed, octal escapes undone, bad lines skipped")
    func parsesMountinfo() {
        let text = """
            22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
            40 22 0:35 / /srv/data\\040dir/a\\134b rw - tmpfs none rw
            41 22 0:36 /sub /srv/data\\040dir/line\\012break rw - tmpfs none rw
            garbage
            x 22 0:1 / /nope rw - tmpfs none rw

            """
        let entries = MountEntry.parse(mountinfo: Array(text.utf8))
        #expect(entries.map(\.mountID) == [22, 40, 41])
        #expect(entries[1].mountPoint == Array("/srv/data dir/a\\b".utf8))
        #expect(entries[2].mountPoint == Array("/srv/data dir/line\nbreak".utf8))
    }

    @Test("each line's device is st_dev's encoding of major:minor, and overlay mounts give the copy-up devices")
    func devicesAndTypes() {
        let text = """
            22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
            40 22 0:35 / /srv/ov rw shared:7 master:2 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w
            41 22 259:65537 / /big rw - xfs /dev/nvme0n1p1 rw

            """
        let entries = MountEntry.parse(mountinfo: Array(text.utf8))
        #expect(entries.map(\.fileSystemType) == [Array("ext4".utf8), Array("overlay".utf8), Array("xfs".utf8)])
        let nvme: UInt64 = (259 << 8) | 0x01 | (0x10000 << 12)
        let devices: [UInt64?] = [0x801, 35, nvme]
        #expect(entries.map(\.device) == devices)
        #expect(MountEntry.copyUpDevices(in: entries) == [35])
    }

    @Test("the places below a root are every place something is or was mounted, shallowest first")
    func placesBelowRoot() {
        let root = Array("/srv/root".utf8)
        func entry(_ id: UInt64, _ path: String) -> MountEntry { MountEntry(mountID: id, mountPoint: Array(path.utf8)) }
        var points = MountPointsBelowRoot(
            root: root,
            table: [entry(1, "/"), entry(2, "/srv/root"), entry(3, "/srv/root/a/b"), entry(4, "/srv/rooted")])
        #expect(points.places == [[Array("a".utf8), Array("b".utf8)]])
        let places = points.update([entry(1, "/"), entry(5, "/srv/root/c"), entry(6, "/srv/root/a/b")])
        #expect(places == [[Array("c".utf8)], [Array("a".utf8), Array("b".utf8)]])
        #expect(points.update([entry(1, "/")]) == [[Array("c".utf8)], [Array("a".utf8), Array("b".utf8)]])
        #expect(points.update([entry(1, "/")]).isEmpty)
    }
}
