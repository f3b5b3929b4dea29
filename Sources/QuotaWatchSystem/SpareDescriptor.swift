import Glibc

/// One descriptor held in reserve (an eventfd), for a server that must stay reachable when
/// the process runs out of descriptors: `accept` fails with EMFILE then, and the waiting
/// connection could never be taken. Releasing the spare just before `accept` frees the
/// number the connection then gets; once a descriptor frees up again (that connection ends),
/// ``retake()`` holds it back for the next time.
package struct SpareDescriptor: Sendable {
    private var held: FileDescriptor?

    /// The corresponding C function is `eventfd`.
    package init() throws(Errno) {
        held = try Self.open()
    }

    package var isHeld: Bool { held != nil }

    /// Closes the spare, so that the next descriptor the process makes can take its place;
    /// false when it was not held (already released, and not yet taken back).
    package mutating func release() -> Bool {
        guard let descriptor = held else { return false }
        descriptor.close()
        held = nil
        return true
    }

    /// Holds a spare again if it was released and a descriptor is free; otherwise leaves it
    /// for the next call.
    package mutating func retake() {
        guard held == nil else { return }
        held = try? Self.open()
    }

    package mutating func close() {
        held?.close()
        held = nil
    }

    /// An eventfd: it names no path, so the spare is made in a chroot without `/dev/null` (where
    /// the daemon would not start) and whatever the mount namespace holds.
    private static func open() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try valueOrErrno { system_eventfd_cloexec() }.get())
    }
}
