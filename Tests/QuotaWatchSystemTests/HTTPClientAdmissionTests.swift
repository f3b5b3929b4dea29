import QuotaWatchSystem
import Testing

@Suite("which new HTTP connections are taken")
struct HTTPClientAdmissionTests {
    private let limits = HTTPServer.Limits(connections: 8, connectionsPerAddress: 4, reserve: 3, idleSeconds: 5)

    @Test("an address is held to its share; the reserve goes one to an address that holds none; closing frees")
    func reserveForNewAddresses() {
        let admission = HTTPClientAdmission(limits: limits)
        let first: [UInt8] = [4, 127, 0, 0, 2]
        let second: [UInt8] = [4, 127, 0, 0, 3]
        for _ in 0..<4 where admission.admits(first) { admission.opened(first) }
        #expect(!admission.admits(first), "past its share")
        #expect(admission.admits(second))
        admission.opened(second)
        // 5 of 8 held: the shared slots are full, only a new address gets one.
        #expect(!admission.admits(second))
        let newcomers = (10..<20).map { [4, 10, 0, 0, UInt8($0)] }
        let taken = newcomers.filter { address in
            guard admission.admits(address) else { return false }
            admission.opened(address)
            return true
        }
        #expect(taken.count == 3 && admission.total == 8)
        #expect(!admission.admits([4, 10, 0, 0, 99]), "every slot is held")
        admission.closed(first)
        #expect(admission.admits([4, 10, 0, 0, 99]) && !admission.admits(first))
    }

    @Test("the server's own limits: two addresses cannot take the reserve")
    func serverLimits() {
        let limits = HTTPServer.limits
        #expect(limits.connectionsPerAddress * 2 <= limits.connections - limits.reserve + limits.connectionsPerAddress)
        #expect(limits.connections - limits.reserve >= limits.connectionsPerAddress)
        #expect(limits.reserve > 0 && limits.idleSeconds <= 10)
    }
}
