import Synchronization
import Testing

@testable import QuotaWatchEngine

@Suite("Log redirection")
struct LogRedirectTests {
    @Test("while redirected, messages reach the sink with their level and not stderr; nil gives stderr back")
    func redirectAndRestore() {
        let received = Mutex<[(LogLevel, String)]>([])
        let marker = "log-redirect-test-\(UInt64.random(in: 0...UInt64.max))"
        Log.redirect { level, text in
            guard text.contains(marker) else { return }  // other suites log in this process too
            received.withLock { $0.append((level, text)) }
        }
        Log.warning("first \(marker)")
        Log.redirect(to: nil)
        Log.warning("second \(marker)")

        let messages = received.withLock { $0 }
        #expect(messages.count == 1, "only the message sent while redirected reaches the sink")
        #expect(messages.first?.0 == .warning)
        #expect(messages.first?.1 == "quotawatch: warning: first \(marker)")
    }
}
