import QuotaWatchCleaningTestSupport
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem
import Synchronization
import Testing

@testable import QuotaWatchCleaning
@testable import QuotaWatchEngine

/// The runner's side of registered cleaners, without a socket: the group expanded at each run
/// in registration order, each call bounded by its own timeout, the context line sent and the
/// reply line read, a cleaner the run does not concern left out of the summary.
@Suite("Cleanup runner: registered cleaners")
struct RegisteredCleanerRunnerTests {
    private func makeRunner(clock: ManualCleanupClock, collector: SummaryCollector) -> CleanupRunner {
        CleanupRunner(
            settings: CleanupRunner.Settings(timeout: .seconds(30), dryRun: false), backend: RecordingBackend(),
            clock: clock, instance: "test", prepare: { _ in CleanupInputs(level: .warning) },
            completion: { collector.receive($0) })
    }

    /// Lines the registry handed to each connection.
    private final class Wire: Sendable {
        let lines = BlockingState<[UInt64: [[UInt8]]]>([:])
        func send(_ id: UInt64) -> @Sendable ([UInt8]) -> Void {
            { line in self.lines.withLockWakingWaiters { $0[id, default: []].append(line) } }
        }
        func count(_ id: UInt64) -> Int { lines.withLock { $0[id]?.count ?? 0 } }
        /// Blocks until connection `id` has been sent a line.
        func waitForLine(_ id: UInt64) { lines.waitUntil { $0[id] != nil } }
    }

    /// Starts a manual run whose plan concerns the registered cleaners `ids`. The daemon's
    /// prepare activates the plan as the run starts; here it is done before.
    private func startRun(_ runner: CleanupRunner, _ plans: CleanupPlans, concerning ids: [UInt64], level: DiskLevel) {
        let trigger = CleanupTrigger.manual("now")
        var plan = CleanupPlan(level: level, jobs: [])
        for id in ids { plan.registered[id] = CleanupInputs(level: level) }
        plans.stage(trigger, plan)
        _ = plans.activate(trigger)
        runner.submit(trigger)
    }

    private func register(
        _ registry: RegisteredCleaners, id: UInt64, _ name: String, timeout: Duration? = nil, wire: Wire
    ) throws {
        _ = try registry.register(
            id: id, RegisterCleanerRequest(name: name, paths: [Array("Caches/\(name)".utf8)], timeout: timeout),
            send: wire.send(id)
        ).get()
    }

    @Test("registered cleaners run where their group stands, in registration order, each with its context")
    func orderAndExchange() throws {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let runner = makeRunner(clock: clock, collector: collector)
        let registry = RegisteredCleaners()
        let plans = CleanupPlans()
        let wire = Wire()
        let log = EventLog()
        runner.register(ScriptedCleaner(name: "before", behaviour: .succeed, log: log))
        runner.register(RegisteredCleanerGroup(registry: registry, plans: plans))
        runner.register(ScriptedCleaner(name: "after", behaviour: .succeed, log: log))
        try register(registry, id: 1, "first", wire: wire)
        try register(registry, id: 2, "second", wire: wire)
        try register(registry, id: 3, "unconcerned", wire: wire)

        startRun(runner, plans, concerning: [1, 2], level: .warning)

        // Each gets its context only after the one before it replied.
        for (id, reply) in [(UInt64(1), #"{"freed":10,"removed":["Caches/first/a"]}"#), (2, #"{"error":"busy"}"#)] {
            wire.waitForLine(id)
            if id == 1 { #expect(wire.count(2) == 0, "the second gets its context after the first replied") }
            let line = try #require(wire.lines.withLock { $0[id]?.first })
            let text = String(decoding: line, as: UTF8.self)
            #expect(
                text.hasSuffix("\n") && text.contains(#""event":"context""#) && text.contains(#""level":"warning""#))
            #expect(registry.answer(id: id, context: nil, line: Array(reply.utf8)))
        }
        runner.waitUntilIdle()
        let summary = try #require(collector.summaries.first)
        #expect(summary.cleaners.map(\.name) == ["before", "first", "second", "after"])
        #expect(summary.cleaners[1].removed.map(\.path) == [Array("Caches/first/a".utf8)])
        #expect(summary.cleaners[1].freedBytes == 10 && summary.freedBytes == 10)
        #expect(summary.cleaners[2].error == "'second': it answered with an error: busy")
        #expect(wire.count(3) == 0, "a cleaner the run does not concern gets no context")
    }

    @Test("a registered cleaner's own timeout bounds its call, and a dropped connection ends it at once")
    func timeoutAndDrop() throws {
        let clock = ManualCleanupClock()
        let collector = SummaryCollector()
        let runner = makeRunner(clock: clock, collector: collector)
        let registry = RegisteredCleaners()
        let plans = CleanupPlans()
        let wire = Wire()
        runner.register(RegisteredCleanerGroup(registry: registry, plans: plans))
        try register(registry, id: 1, "mute", timeout: .milliseconds(1500), wire: wire)
        try register(registry, id: 2, "dropped", wire: wire)
        startRun(runner, plans, concerning: [1, 2], level: .normal)

        wire.waitForLine(1)
        clock.waitForPendingSleep()
        clock.fireAll()
        wire.waitForLine(2)
        registry.unregister(id: 2)
        runner.waitUntilIdle()
        let summary = try #require(collector.summaries.first)
        #expect(
            summary.cleaners.map(\.error) == [
                "timed out after 1.5 seconds",
                "'dropped': the connection of 'dropped' closed before it replied; it is unregistered",
            ])
        // The late reply of the one that timed out is not taken for anything.
        #expect(!registry.answer(id: 1, context: nil, line: Array("{}".utf8)))
        #expect(registry.current.map(\.name) == ["mute"])
    }

    @Test("names are unique, the config's are taken, and the cap is said with the way out")
    func registrationBounds() throws {
        let registry = RegisteredCleaners(capacity: 2)
        registry.configure(timeout: .seconds(5), reservedNames: ["evict"])
        let wire = Wire()
        try register(registry, id: 1, "a", wire: wire)
        #expect(registry.timeout(of: registry.current[0]) == .seconds(5))
        let duplicate = registry.register(
            id: 2, RegisterCleanerRequest(name: "a", paths: [Array("x".utf8)]), send: wire.send(2))
        #expect((try? duplicate.get()) == nil)
        let reserved = registry.register(
            id: 2, RegisterCleanerRequest(name: "evict", paths: [Array("x".utf8)]), send: wire.send(2))
        guard case .failure(let reservedFailure) = reserved else {
            Issue.record("took a config name")
            return
        }
        #expect(reservedFailure.description.contains("a cleaner in the config"))
        try register(registry, id: 3, "b", wire: wire)
        let full = registry.register(
            id: 4, RegisterCleanerRequest(name: "c", paths: [Array("x".utf8)]), send: wire.send(4))
        guard case .failure(let fullFailure) = full else {
            Issue.record("past the cap")
            return
        }
        #expect(fullFailure.description.contains("already has 2 registered cleaners"))
        registry.unregister(id: 1)
        #expect(
            (try? registry.register(
                id: 5, RegisterCleanerRequest(name: "a", paths: [Array("x".utf8)]), send: wire.send(5)
            ).get()) != nil)
    }
}
