/// One line of `/proc/self/mountinfo`: which mount, and where it is attached.
package struct MountEntry: Hashable, Sendable {
    /// The mount's id, unique while it is mounted.
    package var mountID: UInt64
    /// Where it is mounted, absolute, as raw bytes (the kernel's octal escapes undone).
    package var mountPoint: [UInt8]

    package init(mountID: UInt64, mountPoint: [UInt8]) {
        self.mountID = mountID
        self.mountPoint = mountPoint
    }

    /// Every well-formed line of a `mountinfo` file; a line that is not is skipped.
    package static func parse(mountinfo bytes: [UInt8]) -> [MountEntry] {
        var entries: [MountEntry] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, let mountID = decimal(fields[0]) else { continue }
            entries.append(MountEntry(mountID: mountID, mountPoint: unescaped(fields[4])))
        }
        return entries
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
