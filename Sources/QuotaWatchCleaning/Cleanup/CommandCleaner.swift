import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// Runs an external command as a cleaner: an argv list (no shell), the context as JSON on
/// stdin and as `QUOTAWATCH_*` variables (`QUOTAWATCH_ROOT` among them, in a daemon), a
/// timeout after which its process group is killed.
/// What it removes, the engine sees as ordinary events; its result lists nothing.
package struct CommandCleaner: Cleaner {
    package let name: String
    package let arguments: [[UInt8]]
    package let timeout: Duration
    /// Passed on to the command (`PATH`, say), before the `QUOTAWATCH_*` variables.
    package let environment: [[UInt8]]

    package init(name: String, arguments: [[UInt8]], timeout: Duration = .seconds(60), environment: [[UInt8]] = []) {
        self.name = name
        self.arguments = arguments
        self.timeout = timeout
        self.environment = environment
    }

    /// The context as the command gets it (``CommandCleanerContext``).
    package static func context(_ context: CleanupContext) -> CommandCleanerContext {
        CommandCleanerContext(
            trigger: context.trigger.name, level: context.level, dryRun: context.dryRun, run: context.runID,
            root: context.root,
            candidates: context.candidates.map {
                .init(path: EscapedName.string($0.path), allocated: $0.allocatedBytes, rule: $0.rule)
            },
            path: context.directory.map { EscapedName.string($0.path) }, used: context.directory?.used,
            effectiveLimit: context.directory?.effectiveLimit, target: context.directory?.target)
    }

    package func clean(_ context: CleanupContext) throws -> CleanupResult {
        let document = Self.context(context)
        guard case .object(let fields) = PolicyJSON(encoding: document) else { return CleanupResult() }
        var environment = self.environment
        for key in fields.keys.sorted() where key != "candidates" {
            let value: String
            switch fields[key]! {
            case .string(let text): value = text
            case let other: value = other.encoded
            }
            environment.append(Array("QUOTAWATCH_\(key.uppercased())=\(value)".utf8))
        }
        let request = ChildProcess.Request(
            arguments: arguments, environment: environment,
            standardInput: ContractJSON.encode(document) + [0x0A])
        // Blocks the cleaner's thread (the runner gives each call one) until the child ends
        // or its timeout kills it.
        let finished = try ChildProcess.run(request, timeout: timeout)
        let tail = String(decoding: finished.standardErrorTail, as: UTF8.self)
        if finished.timedOut { throw CommandCleanerError(message: "'\(name)' timed out after \(timeout); \(tail)") }
        switch finished.termination {
        case .exited(0): return CleanupResult()
        case .exited(let status): throw CommandCleanerError(message: "'\(name)' exited with status \(status): \(tail)")
        case .signaled(let signal):
            throw CommandCleanerError(message: "'\(name)' was killed by signal \(signal): \(tail)")
        }
    }
}

package struct CommandCleanerError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
