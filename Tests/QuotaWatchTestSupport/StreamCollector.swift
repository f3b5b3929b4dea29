import Foundation
import Glibc

/// Collects everything written to a descriptor, on a thread of its own, until its end.
public final class StreamCollector: @unchecked Sendable {
    // `bytes` and `closed` are read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var bytes: [UInt8] = []
    private var closed = false

    public init(descriptor: CInt) {
        let thread = Thread { [self] in run(descriptor) }
        thread.name = "daemon-stream"
        thread.start()
    }

    public var snapshot: (bytes: [UInt8], closed: Bool) {
        condition.lock()
        defer { condition.unlock() }
        return (bytes, closed)
    }

    /// Waits until `predicate` holds for what has arrived (and whether the stream ended), or
    /// until `timeout` has passed; returns whether it held.
    public func wait(timeout: Duration, until predicate: ([UInt8], Bool) -> Bool) -> Bool {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(bytes, closed) {
            if closed { return false }
            if !condition.wait(until: deadline) { return predicate(bytes, closed) }
        }
        return true
    }

    private func run(_ descriptor: CInt) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer { close(descriptor) }
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in read(descriptor, raw.baseAddress!, raw.count) }
            if count < 0 && errno == EINTR { continue }
            condition.lock()
            if count > 0 {
                bytes += buffer[0..<count]
            } else {
                closed = true
            }
            condition.broadcast()
            condition.unlock()
            if count <= 0 { return }
        }
    }
}
