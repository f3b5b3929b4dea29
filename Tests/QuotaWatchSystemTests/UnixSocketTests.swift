import Foundation
import Glibc
import QuotaWatchSystem
import Testing

@Suite("Unix sockets")
struct UnixSocketTests {
    @Test("a line goes each way and the end of the connection reads as end-of-file")
    func roundTrip() throws {
        let directory = try SocketDirectory()
        let listener = try UnixSocket.listen(at: directory.path("s.sock"))
        defer { listener.close() }
        let client = try UnixSocket.connect(to: directory.path("s.sock"))
        defer { client.close() }
        let server = try listener.accept()

        try client.sendAll(Array("hello\n".utf8))
        #expect(
            try server.receiveLine(maximumBytes: 1024) == ReceivedLine(bytes: Array("hello".utf8), ending: .newline))
        try server.sendAll(Array("world\n".utf8))
        server.close()
        #expect(
            try client.receiveLine(maximumBytes: 1024) == ReceivedLine(bytes: Array("world".utf8), ending: .newline))
        #expect(try client.receiveLine(maximumBytes: 1024) == ReceivedLine(bytes: [], ending: .endOfFile))
    }

    @Test("the socket file gets exactly the mode asked for", arguments: [0o600, 0o660, 0o666] as [mode_t])
    func socketMode(mode: mode_t) throws {
        let directory = try SocketDirectory()
        let path = directory.path("s.sock")
        let listener = try UnixSocket.listen(at: path, mode: mode)
        defer { listener.close() }
        let status = try lstatus(path)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o7777 == mode)
        #expect(try UnixSocket.kind(at: path) == .socket(listener.identity))
    }

    @Test("accepted and connected descriptors are close-on-exec")
    func closeOnExec() throws {
        let directory = try SocketDirectory()
        let listener = try UnixSocket.listen(at: directory.path("s.sock"))
        defer { listener.close() }
        let client = try UnixSocket.connect(to: directory.path("s.sock"))
        defer { client.close() }
        let server = try listener.accept()
        defer { server.close() }
        for descriptor in [listener.descriptor, client, server] {
            #expect(fcntl(descriptor.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        }
    }

    @Test("a path of 107 bytes works and one of 108 is ENAMETOOLONG")
    func pathLengthLimit() throws {
        #expect(UnixSocket.maximumPathLength == 107)
        let directory = try SocketDirectory()
        let fits = directory.path(String(repeating: "f", count: 107 - directory.bytes.count - 1))
        #expect(fits.count == 107)
        let listener = try UnixSocket.listen(at: fits)
        defer { listener.close() }
        try UnixSocket.connect(to: fits).close()

        let tooLong = directory.path(String(repeating: "l", count: 108 - directory.bytes.count - 1))
        #expect(throws: Errno.nameTooLong) { try UnixSocket.listen(at: tooLong) }
        #expect(throws: Errno.nameTooLong) { try UnixSocket.connect(to: tooLong) }
        #expect(try UnixSocket.kind(at: tooLong) == .missing)
    }

    @Test("an empty path or one with a NUL is EINVAL")
    func invalidPaths() throws {
        #expect(throws: Errno.invalidArgument) { try UnixSocket.listen(at: []) }
        #expect(throws: Errno.invalidArgument) { try UnixSocket.connect(to: Array("/tmp/a\u{0}b".utf8)) }
    }

    @Test("connecting where nothing listens: ENOENT without a file, ECONNREFUSED with a stale socket")
    func connectWithoutListener() throws {
        let directory = try SocketDirectory()
        let path = directory.path("s.sock")
        #expect(throws: Errno.noSuchFileOrDirectory) { try UnixSocket.connect(to: path) }

        // A listener that goes away without unlinking, as a crashed daemon does.
        try UnixSocket.listen(at: path).close()
        guard case .socket = try UnixSocket.kind(at: path) else {
            Issue.record("the stale socket file should remain")
            return
        }
        #expect(throws: Errno.connectionRefused) { try UnixSocket.connect(to: path) }
        #expect(throws: Errno.addressInUse) { try UnixSocket.listen(at: path) }
    }

    @Test("kind(at:) tells sockets from other files and missing paths")
    func kinds() throws {
        let directory = try SocketDirectory()
        #expect(try UnixSocket.kind(at: directory.path("missing")) == .missing)
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.string + "/file"))
        #expect(try UnixSocket.kind(at: directory.path("file")) == .other)
        #expect(try UnixSocket.kind(at: directory.bytes) == .other)
        #expect(symlink(directory.string + "/file", directory.string + "/link") == 0)
        #expect(try UnixSocket.kind(at: directory.path("link")) == .other)
    }

    @Test("receiveLine stops at its limit, leaving the rest unread")
    func receiveLimit() throws {
        let directory = try SocketDirectory()
        let listener = try UnixSocket.listen(at: directory.path("s.sock"))
        defer { listener.close() }
        let client = try UnixSocket.connect(to: directory.path("s.sock"))
        defer { client.close() }
        let server = try listener.accept()
        defer { server.close() }

        try client.sendAll([UInt8](repeating: UInt8(ascii: "a"), count: 100))
        let line = try server.receiveLine(maximumBytes: 10)
        #expect(line == ReceivedLine(bytes: [UInt8](repeating: UInt8(ascii: "a"), count: 10), ending: .limitReached))
    }

    @Test("a receive that waits past its timeout or deadline fails with EAGAIN")
    func receiveTimeout() throws {
        let directory = try SocketDirectory()
        let listener = try UnixSocket.listen(at: directory.path("s.sock"))
        defer { listener.close() }
        let client = try UnixSocket.connect(to: directory.path("s.sock"), timeout: .milliseconds(20))
        defer { client.close() }
        let server = try listener.accept()
        defer { server.close() }

        #expect(throws: Errno.resourceTemporarilyUnavailable) { try client.receiveLine(maximumBytes: 10) }
        try client.setReceiveTimeout(.zero)
        let deadline = ContinuousClock.now + .milliseconds(20)
        #expect(throws: Errno.resourceTemporarilyUnavailable) {
            try client.receiveLine(maximumBytes: 10, deadline: deadline)
        }
        #expect(ContinuousClock.now >= deadline)
    }

    @Test("sending to a peer that has gone fails with EPIPE instead of raising SIGPIPE")
    func sendToClosedPeer() throws {
        let directory = try SocketDirectory()
        let listener = try UnixSocket.listen(at: directory.path("s.sock"))
        defer { listener.close() }
        let client = try UnixSocket.connect(to: directory.path("s.sock"))
        let server = try listener.accept()
        defer { server.close() }
        client.close()

        // SIGPIPE's default action would end the test process here.
        #expect(throws: Errno(rawValue: EPIPE)) { try server.sendAll([UInt8](repeating: 1, count: 1 << 20)) }
    }

    @Test("shutdown() wakes a thread blocked in accept with EINVAL")
    func shutdownWakesAccept() async throws {
        let directory = try SocketDirectory()
        let listener = try UnixSocket.listen(at: directory.path("s.sock"))
        defer { listener.close() }
        // Whether accept is already waiting when shutdown comes or is called after it, the
        // answer is the same, so the test needs no timing.
        async let accepted: Result<FileDescriptor, Errno> = onThread {
            Result { () throws(Errno) in try listener.accept() }
        }
        listener.shutdown()
        let result = await accepted
        #expect(throws: Errno.invalidArgument) { try result.get() }
        #expect(throws: Errno.invalidArgument) { try listener.accept() }
    }

    @Test("unlinkIfStillBound removes only the socket this listener bound")
    func unlinkOnlyOwnSocket() throws {
        let directory = try SocketDirectory()
        let path = directory.path("s.sock")
        let first = try UnixSocket.listen(at: path)
        defer { first.close() }
        try UnixSocket.unlink(path)
        let second = try UnixSocket.listen(at: path)
        defer { second.close() }
        #expect(first.identity != second.identity)

        #expect(!first.unlinkIfStillBound())
        #expect(try UnixSocket.kind(at: path) == .socket(second.identity))
        #expect(second.unlinkIfStillBound())
        #expect(try UnixSocket.kind(at: path) == .missing)
        #expect(!second.unlinkIfStillBound())
    }

    @Test("makeDirectory makes a 0700 directory once, and refuses a file")
    func makeDirectory() throws {
        let directory = try SocketDirectory()
        let path = directory.path("run")
        let made = try UnixSocket.makeDirectory(path)
        #expect(made.wasCreated)
        #expect(made.ownerID == geteuid())
        #expect(made.mode == 0o700)
        #expect(try lstatus(path).st_mode & 0o7777 == 0o700)
        #expect(try !UnixSocket.makeDirectory(path).wasCreated)

        try Data().write(to: URL(fileURLWithPath: directory.string + "/file"))
        #expect(throws: Errno.notDirectory) { try UnixSocket.makeDirectory(directory.path("file")) }
        #expect(throws: Errno.noSuchFileOrDirectory) { try UnixSocket.makeDirectory(directory.path("a/b")) }
    }
}

/// A short private directory below /tmp for one test's sockets, removed with everything in it.
/// Not below $TMPDIR, which may be too long for a socket path.
private final class SocketDirectory {
    let bytes: [UInt8]
    var string: String { String(decoding: bytes, as: UTF8.self) }

    init() throws {
        var template = Array("/tmp/qw-sock.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw Errno(rawValue: errno) }
        bytes = template.dropLast().map { UInt8(bitPattern: $0) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: string)
    }

    func path(_ name: String) -> [UInt8] {
        bytes + [UInt8(ascii: "/")] + Array(name.utf8)
    }
}

private func lstatus(_ path: [UInt8]) throws -> stat {
    var status = stat()
    guard lstat(String(decoding: path, as: UTF8.self), &status) == 0 else { throw Errno(rawValue: errno) }
    return status
}

/// Runs blocking `body` on a thread of its own, so that it never holds one of the few threads
/// Swift concurrency shares between all tests.
private func onThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
