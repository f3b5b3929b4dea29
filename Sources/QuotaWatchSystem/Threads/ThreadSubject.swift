import Glibc

/// What the work on a thread is about, for its log lines: the root a thread serves, in a
/// daemon serving several.
///
/// Set for a scope with ``with(_:_:)`` and inherited by every ``JoinableThread`` started
/// inside it, so a root's engine, its cleaners, hooks, history writer and audit log all name
/// their root in what they log, and no call site has to pass the root along (or can forget
/// to). A thread serving every root (a shared backend's reader, the `--events` writer) is
/// started with `inheritsSubject: false`.
package enum ThreadSubject {
    /// The subject of the calling thread; nil where none was set.
    package static var current: String? {
        guard let subjectKey, let raw = unsafe pthread_getspecific(subjectKey) else { return nil }
        return unsafe Unmanaged<Subject>.fromOpaque(raw).takeUnretainedValue().text
    }

    /// Runs `body` with `subject` as the calling thread's subject (nil: none), restoring the
    /// one before.
    package static func with<Result, Failure: Error>(
        _ subject: String?, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard let subjectKey else { return try body() }
        let previous = unsafe pthread_getspecific(subjectKey)
        let retained = unsafe subject.map { unsafe Unmanaged.passRetained(Subject(text: $0)) }
        unsafe pthread_setspecific(subjectKey, retained?.toOpaque())
        defer {
            unsafe pthread_setspecific(subjectKey, previous)
            unsafe retained?.release()
        }
        return try body()
    }

    private final class Subject: Sendable {
        let text: String
        init(text: String) { self.text = text }
    }
}

/// The slot each thread keeps its subject in. Nil if the process is out of keys (1 024 of
/// them; this one is made once): log lines then go without their root, nothing else changes.
private let subjectKey: pthread_key_t? = {
    var key = pthread_key_t()
    guard unsafe pthread_key_create(&key, nil) == 0 else { return nil }
    return key
}()
