import CQuotaWatchShims
import Glibc
import QuotaWatchCore

/// This process's mount table, `/proc/self/mountinfo`, and what changes in it.
///
/// inotify says nothing about mounts: a file system mounted over a watched directory hides it
/// without an event, and an unmount uncovers it with only `IN_UNMOUNT` on the watches of the
/// file system that went. The kernel does report every change of the table: `poll` on an open
/// `mountinfo` gives `POLLPRI` (with `POLLERR`) after each mount, unmount or move.
package final class MountTable: Sendable {
    private let descriptor: FileDescriptor
    private let wakeup: WakeupEvent

    /// Opens `/proc/self/mountinfo`.
    ///
    /// The corresponding C function is `openat`.
    package init() throws(Errno) {
        let raw = try unsafe withCString(Array("/proc/self/mountinfo".utf8)) { path throws(Errno) in
            try valueOrErrno { unsafe system_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0) }.get()
        }
        descriptor = FileDescriptor(rawValue: raw)
        do {
            wakeup = try WakeupEvent()
        } catch {
            descriptor.close()
            throw error
        }
    }

    /// The table as it is now.
    ///
    /// The corresponding C function is `pread`.
    package func read() throws(Errno) -> [MountEntry] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let offset = bytes.count
            let result = unsafe chunk.withUnsafeMutableBytes { buffer in
                valueOrErrno { unsafe system_pread(descriptor.rawValue, buffer.baseAddress!, buffer.count, offset) }
            }
            let count = try result.get()
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return MountEntry.parse(mountinfo: bytes)
    }

    /// Blocks until the table changes (true) or ``stop()`` is called (false).
    ///
    /// The corresponding C function is `poll`.
    package func waitForChange() throws(Errno) -> Bool {
        while true {
            var entries = [
                pollfd(fd: descriptor.rawValue, events: Int16(POLLPRI), revents: 0),
                pollfd(fd: wakeup.descriptor.rawValue, events: Int16(POLLIN), revents: 0),
            ]
            let result = unsafe entries.withUnsafeMutableBufferPointer { buffer in
                valueOrErrno { unsafe system_poll(buffer.baseAddress!, buffer.count, -1) }
            }
            _ = try result.get()
            if entries[1].revents != 0 { return false }
            if Int32(entries[0].revents) & (POLLPRI | POLLERR) != 0 { return true }
        }
    }

    /// Wakes ``waitForChange()`` for good.
    package func stop() { wakeup.wake() }

    package func close() {
        descriptor.close()
        wakeup.close()
    }
}

extension FileDescriptor {
    /// The id of the mount this descriptor lies on (`/proc/self/mountinfo`'s first field), or
    /// nil when the kernel does not say (before Linux 5.8).
    ///
    /// The corresponding C function is `statx` with `STATX_MNT_ID` (through the deleter's
    /// ``mountPlace()``, the one reading of a mount id).
    package var mountID: UInt64? { (try? mountPlace())?.mountID }

    /// The absolute path the kernel gives for this open directory, symlinks and `..` resolved
    /// (the link `/proc/self/fd/N`). Nil when it cannot be read or the directory was deleted.
    ///
    /// The corresponding C function is `readlinkat`.
    package var canonicalPath: [UInt8]? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let link = Array("/proc/self/fd/\(rawValue)".utf8)
        let count = try? unsafe withCString(link) { path throws(Errno) in
            try unsafe buffer.withUnsafeMutableBufferPointer { target throws(Errno) in
                try valueOrErrno { unsafe system_readlinkat(AT_FDCWD, path, target.baseAddress!, target.count) }.get()
            }
        }
        guard let count, count > 0, count < buffer.count, buffer[0] == CChar(UInt8(ascii: "/")) else { return nil }
        let path = buffer[0..<count].map { UInt8(bitPattern: $0) }
        if path.count > 10 && path.suffix(10).elementsEqual(" (deleted)".utf8) { return nil }
        return path
    }
}
