import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// The context line a registered cleaner is sent for one call (the reply side,
/// ``RegisteredCleanerWire/decodeReply(_:paths:)``, is the engine's: its control loop reads it).
extension RegisteredCleanerWire {
    static func context(_ context: CleanupContext, context number: UInt64, cleaner: String) -> RegisteredCleanerContext
    {
        RegisteredCleanerContext(
            context: number, cleaner: cleaner, run: context.runID, trigger: context.trigger.contract,
            level: context.level, dryRun: context.dryRun,
            directory: context.directory.map { directory in
                RegisteredCleanerContext.Directory(
                    path: EscapedName.string(directory.path), size: directory.size, used: directory.used,
                    effectiveLimit: directory.effectiveLimit, target: directory.target,
                    tally: directory.tally.map {
                        RegisteredCleanerContext.Tally(
                            allocated: $0.allocated, apparent: $0.apparent, files: $0.files, dirs: $0.dirs)
                    })
            },
            candidates: context.candidates.map {
                RegisteredCleanerContext.Candidate(
                    path: EscapedName.string($0.path), allocated: $0.allocatedBytes, apparent: $0.apparentBytes,
                    modifiedMilliseconds: $0.modifiedNanoseconds / 1_000_000, rule: $0.rule)
            })
    }

    static func contextLine(_ context: CleanupContext, context number: UInt64, cleaner: String) -> [UInt8] {
        ContractJSON.encode(Self.context(context, context: number, cleaner: cleaner)) + [0x0A]
    }
}
