import Glibc
import QuotaWatchCore

/// An inotify instance, opened close-on-exec and non-blocking.
package struct InotifyDescriptor: Sendable {
    package let descriptor: FileDescriptor

    /// The corresponding C function is `inotify_init1`.
    package init() throws(Errno) {
        let raw = try valueOrErrno { system_inotify_init1(CInt(IN_CLOEXEC | IN_NONBLOCK)) }.get()
        descriptor = FileDescriptor(rawValue: raw)
    }

    /// Watches the directory open at `directory`. Going through `/proc/self/fd/N` watches the
    /// very inode we opened, whatever has been renamed since, and needs no path of any length.
    /// Adding a watch to an inode already watched returns its existing descriptor.
    ///
    /// The corresponding C function is `inotify_add_watch`.
    package func addWatch(_ directory: FileDescriptor, mask: InotifyMask) throws(Errno) -> Int32 {
        let path = Array("/proc/self/fd/\(directory.rawValue)".utf8)
        return try unsafe withCString(path) { cPath throws(Errno) in
            try valueOrErrno { unsafe system_inotify_add_watch(descriptor.rawValue, cPath, mask.rawValue) }.get()
        }
    }

    /// The corresponding C function is `inotify_rm_watch`.
    package func removeWatch(_ watch: Int32) {
        _ = system_inotify_rm_watch(descriptor.rawValue, watch)
    }

    /// Reads whatever events are queued into `buffer`, decoding them onto `events`.
    /// Returns false when nothing was queued (the descriptor is non-blocking).
    ///
    /// The corresponding C function is `read`.
    package func readEvents(buffer: inout [UInt8], into events: inout [InotifyEvent]) throws(Errno) -> Bool {
        try readEvents(buffer: &buffer) { events.append($0) }
    }

    /// The same, handing each event to `each` as it is decoded.
    ///
    /// The corresponding C function is `read`.
    package func readEvents(buffer: inout [UInt8], _ each: (InotifyEvent) -> Void) throws(Errno) -> Bool {
        try readEventBytes(buffer: &buffer, each) > 0
    }

    /// The same, returning how many bytes came (0 when nothing was queued).
    ///
    /// The corresponding C function is `read`.
    package func readEventBytes(buffer: inout [UInt8], _ each: (InotifyEvent) -> Void) throws(Errno) -> Int {
        let count = try descriptor.readAvailable(into: &buffer)
        unsafe buffer.withUnsafeBytes { raw in
            unsafe InotifyEvent.decode(raw: UnsafeRawBufferPointer(rebasing: raw[0..<count]), each)
        }
        return count
    }

    package func close() { descriptor.close() }
}

/// Waits until one of several descriptors is readable.
package enum Readiness {
    /// Returns the indices of `descriptors` that are readable (or hung up), waiting at most
    /// `timeoutMilliseconds` (-1: forever).
    ///
    /// The corresponding C function is `poll`.
    package static func wait(for descriptors: [FileDescriptor], timeoutMilliseconds: Int32) throws(Errno) -> [Int] {
        var entries = descriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        let result = unsafe entries.withUnsafeMutableBufferPointer { buffer in
            valueOrErrno { unsafe system_poll(buffer.baseAddress!, buffer.count, timeoutMilliseconds) }
        }
        _ = try result.get()
        return entries.indices.filter { entries[$0].revents != 0 }
    }
}

extension FileDescriptor {
    /// Whether the other end is gone: a terminal hung up (its window closed, the ssh
    /// connection lost), a pipe's writer closed. A read would only ever say EOF or EIO again.
    /// Does not wait.
    ///
    /// The corresponding C function is `poll`.
    package var isHungUp: Bool {
        // Hang-ups and errors are reported whatever is asked for: ask for nothing else.
        var entry = pollfd(fd: rawValue, events: 0, revents: 0)
        guard unsafe system_poll(&entry, 1, 0) == 1 else { return false }
        return Int32(entry.revents) & (POLLHUP | POLLERR | POLLNVAL) != 0
    }
}
