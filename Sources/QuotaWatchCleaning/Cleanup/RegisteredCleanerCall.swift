import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// One registered cleaner as the runner calls it: the context the engine planned for it and
/// this trigger goes to its connection as one line, and its reply line comes back as the
/// result. The runner's timeout for it is the registration's; past it the call is cancelled,
/// reported, and the next cleaner runs. The blocking wait for the reply has a deadline of its
/// own, a second timeout later, so that the call's thread ends even if no runner cancels it.
struct RegisteredCleanerCall: Cleaner {
    let registration: RegisteredCleaners.Registration
    let registry: RegisteredCleaners
    let plans: CleanupPlans
    let timeout: Duration

    var name: String { registration.name }
    var callTimeout: Duration? { timeout }

    func clean(_ context: CleanupContext) throws -> CleanupResult {
        // Its context as the cleaners before it left the tree: none of their files, the tally
        // after them, and nothing at all once they brought the directory to its target.
        guard let plan = plans.active(context.trigger), let planned = plan.registered[registration.id],
            let inputs = plan.settle(planned, after: context.removedEarlier)
        else {
            throw CleanerNotConcerned()
        }
        // Like a command cleaner: a program cannot be made to report only, so a dry run leaves it out.
        if context.dryRun || plan.dryRun { throw CleanerNotConcerned() }
        let call = CleanupContext(
            trigger: context.trigger, inputs: inputs, dryRun: false, remover: context.remover, runID: context.runID)
        let name = name
        let deadline = ContinuousClock.now + timeout * 2
        let answer = registry.exchange(id: registration.id, deadline: deadline, cancellation: context.cancellation) {
            number in
            RegisteredCleanerWire.contextLine(call, context: number, cleaner: name)
        }
        switch answer {
        case .failed(let message):
            throw CommandCleanerError(message: "'\(name)': \(message)")
        case .reply(let line):
            switch RegisteredCleanerWire.decodeReply(line, paths: registration.paths) {
            case .success(let result): return result
            case .failure(let failure): throw CommandCleanerError(message: "'\(name)': \(failure.description)")
            }
        }
    }
}

/// The registered cleaners' place in the run order: the config's `registered` entry, or after
/// the configured cleaners. Expanded at the start of each run into one call per registration,
/// in registration order.
struct RegisteredCleanerGroup: CleanerGroup {
    let name = "registered"
    let registry: RegisteredCleaners
    let plans: CleanupPlans

    func members() -> [any Cleaner] {
        registry.current.map {
            RegisteredCleanerCall(registration: $0, registry: registry, plans: plans, timeout: registry.timeout(of: $0))
        }
    }

    func clean(_ context: CleanupContext) throws -> CleanupResult { CleanupResult() }
}
