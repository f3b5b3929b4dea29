import QuotaWatchSystem
import Testing

@Suite("hang-up")
struct HangUpTests {
    @Test("a pipe's read end is hung up only once its writer is closed, and the check does not wait")
    func pipeWriterClosed() throws {
        let pipe = try WakeupPipe()
        defer { pipe.readEnd.close() }
        #expect(!pipe.readEnd.isHungUp)
        pipe.writeEnd.close()
        #expect(pipe.readEnd.isHungUp)
    }
}
