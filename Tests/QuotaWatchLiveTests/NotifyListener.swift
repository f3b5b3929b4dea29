import Foundation
import Glibc
import QuotaWatchTestSupport

/// The service manager's end of the notify protocol, for a test: a Unix datagram socket
/// bound at `path` (what `NOTIFY_SOCKET` names) that keeps every message it receives, so a
/// test can wait for one, as `systemd-notify`'s peer would see it, without a running systemd.
final class NotifyListener: @unchecked Sendable {
    let path: String
    private let descriptor: CInt
    // `messages` and `stopped` are read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var messages: [String] = []
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameter reading: false makes a manager that never reads: its queue fills up and a
    ///   sender then blocks.
    init(path: String, reading: Bool = true) throws {
        self.path = path
        descriptor = socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallError("socket", path, errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw SystemCallError("bind", path, errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = errno
            close(descriptor)
            throw SystemCallError("bind", path, errno: error)
        }
        guard reading else {
            finished.signal()
            return
        }
        let thread = Thread { [self] in receive() }
        thread.name = "notify-listener"
        thread.start()
    }

    deinit {
        condition.lock()
        stopped = true
        condition.unlock()
        finished.wait()
        close(descriptor)
        unlink(path)
    }

    /// Every message so far, in order.
    var received: [String] {
        condition.lock()
        defer { condition.unlock() }
        return messages
    }

    /// Waits until `predicate` holds for the messages received so far; returns them, or
    /// throws after `timeout` naming `what` and listing what did arrive.
    @discardableResult
    func wait(
        for what: String, timeout: Duration = .seconds(30), until predicate: ([String]) -> Bool
    ) throws -> [String] {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(messages) {
            if !condition.wait(until: deadline) && !predicate(messages) {
                throw DaemonError("no notify message \(what) within \(timeout); received: \(messages)")
            }
        }
        return messages
    }

    /// The index of the first message at or after `start` containing the line `line`.
    static func index(of line: String, in messages: [String], from start: Int = 0) -> Int? {
        guard start < messages.count else { return nil }
        return messages[start...].firstIndex { Self.lines($0).contains(line) }
    }

    /// The value of the last `KEY=` assignment among `messages`.
    static func lastValue(of key: String, in messages: [String]) -> String? {
        messages.reversed().lazy.compactMap { message in
            Self.lines(message).last { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }.first
    }

    static func lines(_ message: String) -> [String] {
        message.split(separator: "\n").map(String.init)
    }

    private func receive() {
        defer { finished.signal() }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            condition.lock()
            let isStopped = stopped
            condition.unlock()
            if isStopped { return }
            // A bounded wait, only so that the thread notices `stopped`; messages wake it at once.
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { raw in recv(descriptor, raw.baseAddress!, raw.count, 0) }
            guard count > 0 else { continue }
            condition.lock()
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
            condition.broadcast()
            condition.unlock()
        }
    }
}
