import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// Why a file named by a person (a config) could not be read.
package enum RegularFileError: Error, Equatable, CustomStringConvertible {
    /// Opening, inspecting or reading it failed.
    case system(Errno)
    /// It is not a regular file: reading a FIFO would wait for a writer for ever, a device
    /// might never end, a directory has no bytes. `type` says what it is ("a FIFO").
    case notRegular(type: String)
    /// It holds more than the reader takes.
    case tooLarge(limit: Int)

    package var description: String {
        switch self {
        case .system(let errno): "\(errno)"
        case .notRegular(let type): "it is \(type), not a regular file"
        case .tooLarge(let limit):
            "the file is larger than \(ByteFormat.binary.string(UInt64(limit))); is it the right file?"
        }
    }
}

/// Whole regular files named on the command line or in a config.
package enum RegularFile {
    /// Reads all of the regular file at `path` (a symlink is followed: a config linked from
    /// elsewhere is normal), at most `limit` bytes. The file is opened with `O_NONBLOCK`, so
    /// a FIFO's open returns at once instead of waiting for a writer, then the descriptor
    /// opened (not the path again) is checked, and anything but a regular file is refused
    /// before a byte is read.
    ///
    /// The corresponding C functions are `openat`, `fstatat` with `AT_EMPTY_PATH`, and `read`.
    package static func read(bytes path: [UInt8], limit: Int) throws(RegularFileError) -> [UInt8] {
        let raw: CInt
        do {
            raw = try unsafe withCString(path) { cPath throws(Errno) in
                try valueOrErrno {
                    unsafe system_openat(AT_FDCWD, cPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0)
                }.get()
            }
        } catch {
            throw .system(error)
        }
        let descriptor = FileDescriptor(rawValue: raw)
        defer { descriptor.close() }
        var status = stat()
        if case .failure(let errno) = valueOrErrno({
            unsafe system_fstatat(raw, "", &status, CInt(QW_AT_EMPTY_PATH))
        }) {
            throw .system(errno)
        }
        if let type = nonRegularType(mode: status.st_mode) { throw .notRegular(type: type) }
        // One byte more than the limit tells a file at the limit from a larger one; the buffer
        // starts at the size the file has now and grows only if it grows while being read.
        let wanted = limit + 1
        var bytes = [UInt8](repeating: 0, count: min(wanted, max(Int(clamping: status.st_size), 0) + 1))
        var filled = 0
        while filled < wanted {
            if filled == bytes.count {
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, wanted - filled)))
            }
            let room = bytes.count - filled
            let result = unsafe bytes.withUnsafeMutableBytes { buffer in
                valueOrErrno { unsafe system_read(raw, buffer.baseAddress! + filled, room) }
            }
            let count: Int
            do { count = try result.get() } catch { throw .system(error) }
            if count == 0 { break }
            filled += count
        }
        guard filled <= limit else { throw .tooLarge(limit: limit) }
        return Array(bytes[0..<filled])
    }

    /// What a non-regular file is, in words; nil for a regular file.
    static func nonRegularType(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "a file of unknown type"
        }
    }
}
