/// One line of `/proc/self/mountinfo`: which mount, and where it is attached.
package struct MountEntry: Hashable, Sendable {
    /// The mount's id, unique while it is mounted.
    package var mountID: UInt64
    /// Where it is mounted, absolute, as raw bytes (the kernel's octal escapes undone).
    package var mountPoint: [UInt8]
    /// The `st_dev` of what is mounted (the third field, `major:minor`, in glibc's encoding).
    package var device: UInt64?
    /// The file system type (`ext4`, `overlay`), the first field after the ` - ` separator.
    package var fileSystemType: [UInt8]

    package init(mountID: UInt64, mountPoint: [UInt8], device: UInt64? = nil, fileSystemType: [UInt8] = []) {
        self.mountID = mountID
        self.mountPoint = mountPoint
        self.device = device
        self.fileSystemType = fileSystemType
    }

    /// The devices of the overlayfs mounts in `table`. A copy-up (a lower file written, or
    /// chmod'ed, through the overlay) gives each directory above it an upper directory with
    /// overlay's extended attributes, so their own blocks change, and no event on the overlay
    /// says so: an event below such a directory is when to stat it again.
    package static func copyUpDevices(in table: [MountEntry]) -> Set<UInt64> {
        Set(table.filter { $0.fileSystemType.elementsEqual("overlay".utf8) }.compactMap(\.device))
    }

    /// Every well-formed line of a `mountinfo` file; a line that is not is skipped.
    package static func parse(mountinfo bytes: [UInt8]) -> [MountEntry] {
        var entries: [MountEntry] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, let mountID = decimal(fields[0]) else { continue }
            var fileSystemType: [UInt8] = []
            if fields.count == 6 {
                // Optional fields, then "-", then the type.
                let rest = fields[5].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
                if let dash = rest.firstIndex(where: { $0.elementsEqual([UInt8(ascii: "-")]) }), dash + 1 < rest.count {
                    fileSystemType = Array(rest[dash + 1])
                }
            }
            entries.append(
                MountEntry(
                    mountID: mountID, mountPoint: unescaped(fields[4]), device: device(fields[2]),
                    fileSystemType: fileSystemType))
        }
        return entries
    }

    /// `major:minor` (decimal) as `makedev(3)` encodes it, which is what `st_dev` holds.
    private static func device(_ field: ArraySlice<UInt8>) -> UInt64? {
        let parts = field.split(separator: UInt8(ascii: ":"))
        guard parts.count == 2, let major = decimal(parts[0]), let minor = decimal(parts[1]) else { return nil }
        return ((major & 0xffff_f000) << 32) | ((major & 0x0000_0fff) << 8) | ((minor & 0xffff_ff00) << 12)
            | (minor & 0x0000_00ff)
    }

    private static func decimal(_ field: ArraySlice<UInt8>) -> UInt64? {
        guard !field.isEmpty, field.count <= 19 else { return nil }
        var value: UInt64 = 0
        for byte in field {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The kernel writes space, tab, newline and backslash in a path as `\ooo`.
    private static func unescaped(_ field: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(field.count)
        var index = field.startIndex
        while index < field.endIndex {
            let byte = field[index]
            if byte == UInt8(ascii: "\\"), field.endIndex - index >= 4 {
                let digits = field[(index + 1)...(index + 3)]
                if digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }) {
                    let value = digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
                    if value <= 0xFF {
                        result.append(UInt8(value))
                        index += 4
                        continue
                    }
                }
            }
            result.append(byte)
            index += 1
        }
        return result
    }
}
