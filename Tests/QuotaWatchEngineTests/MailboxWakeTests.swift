import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import Testing

@testable import QuotaWatchEngine

/// While the engine waits for its next flush, changes wait with it (they count from that
/// flush on); anything else wakes it at once.
@Suite("the mailbox wakes the engine for what cannot wait")
struct MailboxWakeTests {
    private static let change = FileSystemChange(watch: 1, kind: .created, name: Array("f".utf8))

    /// Posts `messages` from another thread once a take is blocked holding changes back.
    private func postOnceHeld(_ mailbox: Mailbox, _ messages: [EngineMessage]) -> JoinableThread {
        JoinableThread(name: "test-poster") {
            // Waits for an event (the take's flag, set under the lock it blocks with), not a time.
            while !mailbox.holdsChanges { sched_yield() }
            for message in messages { mailbox.post(message) }
        }
    }

    @Test("changes posted while the engine waits for its flush deadline do not wake it")
    func changesWaitForTheDeadline() {
        let mailbox = Mailbox()
        let poster = postOnceHeld(mailbox, [.events([Self.change]), .filesChanged([ChangedFile(device: 1, inode: 2)])])
        let deadline = ContinuousClock.now + .milliseconds(300)
        let taken = mailbox.take(until: deadline, changesMayWait: true)
        poster.join()
        #expect(ContinuousClock.now >= deadline, "woken before its deadline by a change")
        #expect(taken.count == 2, "both changes are there at the deadline")
    }

    @Test("a request, a stop or a signal wakes it at once, changes and all; without a deadline changes wake it")
    func otherMessagesWake() {
        let mailbox = Mailbox()
        let started = ContinuousClock.now
        let poster = postOnceHeld(mailbox, [.events([Self.change]), .stop])
        let taken = mailbox.take(until: started + .seconds(60), changesMayWait: true)
        poster.join()
        #expect(ContinuousClock.now - started < .seconds(30), "the stop woke the take")
        #expect(taken.count == 2)

        let eager = Mailbox()
        let waiting = JoinableThread(name: "test-taker") {
            #expect(eager.take(until: nil, changesMayWait: true).count == 1, "no deadline: a change wakes it")
        }
        eager.post(.events([Self.change]))
        waiting.join()
    }
}
