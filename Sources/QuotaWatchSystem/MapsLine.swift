import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// One line of `/proc/PID/maps`: `start-end perms offset major:minor inode [path]`.
enum MapsLine {
    /// The files of every shared writable mapping in the whole lines of `bytes`, and how many
    /// bytes those lines took (a last line without its newline is left). Most lines are
    /// private or read-only: the C helper finds the few that are not, and only those are parsed.
    static func sharedWritableFiles(in bytes: UnsafeBufferPointer<UInt8>) -> (files: [FileIdentity], consumed: Int) {
        guard let base = bytes.baseAddress else { return ([], 0) }
        var files: [FileIdentity] = []
        var offset = 0
        var lines = [Int](repeating: 0, count: 2 * 64)
        while offset < bytes.count {
            var consumed = 0
            let found = unsafe lines.withUnsafeMutableBufferPointer { pairs in
                unsafe qw_maps_shared_writable_lines(
                    base + offset, bytes.count - offset, pairs.baseAddress!, 64, &consumed)
            }
            for index in 0..<found {
                let line = unsafe UnsafeBufferPointer(
                    start: base + offset + lines[2 * index], count: lines[2 * index + 1] - lines[2 * index])
                if let file = unsafe sharedWritableFile(Array(line)[...]) { files.append(file) }
            }
            if consumed == 0 { break }
            offset += consumed
        }
        return (files, offset)
    }

    /// The file a shared writable mapping writes (device in `st_dev`'s encoding), or nil for any
    /// other line (private, read-only, or anonymous: inode 0).
    static func sharedWritableFile(_ line: ArraySlice<UInt8>) -> FileIdentity? {
        let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5 else { return nil }
        let permissions = Array(fields[1])
        guard permissions.count >= 4, permissions[1] == UInt8(ascii: "w"), permissions[3] == UInt8(ascii: "s") else {
            return nil
        }
        let device = fields[3].split(separator: UInt8(ascii: ":"))
        guard device.count == 2, let major = UInt64(String(decoding: device[0], as: UTF8.self), radix: 16),
            let minor = UInt64(String(decoding: device[1], as: UTF8.self), radix: 16),
            let inode = UInt64(String(decoding: fields[4], as: UTF8.self)), inode != 0
        else { return nil }
        return FileIdentity(device: deviceNumber(major: major, minor: minor), inode: inode)
    }

    /// `makedev(3)`: how glibc (and so `st_dev`) encodes a major and minor number.
    static func deviceNumber(major: UInt64, minor: UInt64) -> UInt64 {
        ((major & 0xffff_f000) << 32) | ((major & 0x0000_0fff) << 8) | ((minor & 0xffff_ff00) << 12)
            | (minor & 0x0000_00ff)
    }
}
