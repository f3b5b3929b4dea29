import Glibc
import Synchronization

/// State that belongs to one thread, checked rather than locked, as NIO's `NIOLoopBound` is:
/// the first access claims the box for the calling thread, and an access from any other
/// thread afterwards stops the process, naming the box. An engine participant's state is
/// one of these: everything it holds is touched on the engine thread, and a lock there would
/// only hide a second thread, not make it safe.
///
/// The box is `Sendable` so that the participant holding it can be handed to the engine
/// thread; the check on every access is what makes that sound. Nested access from the owning
/// thread (a `withValue` inside another) is caught by Swift's exclusivity check.
package final class ThreadBound<Value>: @unchecked Sendable {
    private var value: Value
    private let owner = Atomic<UInt>(0)
    private let name: StaticString

    /// `name` says whose state it is in the message of a wrong-thread access.
    package init(_ value: sending Value, name: StaticString) {
        self.value = value
        self.name = name
    }

    /// Reads or changes the value; on the owning thread only (the first one to call this).
    package func withValue<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let caller = UInt(pthread_self())
        let claim = owner.compareExchange(expected: 0, desired: caller, ordering: .acquiringAndReleasing)
        guard claim.exchanged || claim.original == caller else {
            preconditionFailure("\(name) belongs to one thread and was touched from another")
        }
        return try body(&value)
    }
}
