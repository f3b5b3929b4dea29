import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy

/// The context line a registered cleaner is sent for one call (the reply side,
/// ``RegisteredCleanerWire/decodeReply(_:paths:)``, is the engine's: its control loop reads it).
extension RegisteredCleanerWire {
    static func contextLine(_ context: CleanupContext, context number: UInt64, cleaner: String) -> [UInt8] {
        var fields: [String: PolicyJSON] = [
            "event": .string("context"), "context": .unsigned(number), "cleaner": .string(cleaner),
            "run": .string(context.runID), "trigger": .object(context.trigger.fields),
            "level": .string(context.level.rawValue), "dry_run": .bool(context.dryRun),
            "candidates": .array(
                context.candidates.map {
                    .object([
                        "path": .string(EscapedName.string($0.path)), "allocated": .unsigned($0.allocatedBytes),
                        "apparent": .unsigned($0.apparentBytes),
                        "modified_ms": .integer($0.modifiedNanoseconds / 1_000_000),
                        "rule": .string($0.rule),
                    ])
                }),
        ]
        fields["directory"] =
            context.directory.map { directory in
                var object: [String: PolicyJSON] = [
                    "path": .string(EscapedName.string(directory.path)), "size": .string(directory.size.rawValue),
                    "used": .unsigned(directory.used), "effective_limit": .unsigned(directory.effectiveLimit),
                    "target": .unsigned(directory.target),
                ]
                if let tally = directory.tally {
                    object["tally"] = .object([
                        "allocated": .unsigned(tally.allocated), "apparent": .unsigned(tally.apparent),
                        "files": .unsigned(tally.files), "dirs": .unsigned(tally.dirs),
                    ])
                }
                return .object(object)
            } ?? .null
        return Array((PolicyJSON.object(fields).encoded + "\n").utf8)
    }
}
