import Foundation
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// An intent found without an outcome at start, and what became of its name.
package struct RecoveredIntent: Sendable, Hashable {
    package var path: [UInt8]
    package var identity: FileIdentity
    package var run: String
    package var sequence: UInt64
    /// The name still leads to the inode: the unlink never happened.
    package var present: Bool
}

extension AuditLog {
    /// At every start: resolves the intents a crash left without an outcome in `directory`'s
    /// log (``recover(using:)``) and says once how many, and what became of them. A daemon
    /// that does not delete (no `--clean`, `--dry-run`) resolves them too; without a log
    /// there (nothing was ever deleted) nothing is created.
    package static func resolveIntentsLeftOpen(in directory: [UInt8]?, using deleter: Deleter) {
        guard let directory else { return }
        let path = directory + Array("/\(fileName)".utf8)
        guard (try? FileDescriptor.currentWorkingDirectory.status(of: path)) != nil else { return }
        do {
            try AuditLog(directory: directory).resolveIntentsLeftOpen(using: deleter)
        } catch {
            Log.warning(
                "could not open the audit log to resolve the deletions a crash left without an outcome: \(error); "
                    + "they are resolved at the next start that can write it")
        }
    }

    /// ``recover(using:)``, said once in the log.
    package func resolveIntentsLeftOpen(using deleter: Deleter) {
        let recovered: [RecoveredIntent]
        do {
            recovered = try recover(using: deleter)
        } catch {
            Log.warning(
                "could not read \(HumanText.name(path)) to resolve the deletions a crash left without an outcome: "
                    + "\(error); they are resolved at the next start that can")
            return
        }
        guard !recovered.isEmpty else { return }
        let present = recovered.filter(\.present).count
        Log.warning(
            "the audit log \(HumanText.name(path)) had \(recovered.count) deletion(s) without an outcome (a daemon "
                + "stopped between intent and removal): \(recovered.count - present) gone, recorded as deleted "
                + "('recovered: gone'); \(present) still present, recorded as not done ('recovered: present')")
    }

    /// Resolves every intent in the current log file that has no outcome (the daemon died
    /// between the two): the name still leading to the recorded inode is `present`, anything
    /// else is `gone`. An outcome record `recovered: gone` or `recovered: present` is appended
    /// for each, so the next start finds nothing to do. A torn last line (a crash mid-write)
    /// is ignored: its intent was never complete, so its unlink never ran.
    package func recover(using deleter: Deleter) throws(Errno) -> [RecoveredIntent] {
        var dangling: [String: RecoveredIntent] = [:]
        var order: [String] = []
        for line in try currentContents().split(separator: UInt8(ascii: "\n")) {
            guard let record = try? ContractJSON.decode(AuditRecordDocument.self, from: line) else { continue }
            let key = "\(record.run)#\(record.sequence)"
            guard case .intent(let intent) = record else {
                dangling[key] = nil
                continue
            }
            guard let path = EscapedName.bytes(intent.path) else { continue }
            dangling[key] = RecoveredIntent(
                path: path, identity: FileIdentity(device: intent.device, inode: intent.inode), run: intent.run,
                sequence: intent.sequence, present: false)
            order.append(key)
        }
        var recovered: [RecoveredIntent] = []
        for key in order {
            guard var intent = dangling.removeValue(forKey: key) else { continue }
            intent.present = deleter.identity(at: intent.path) == intent.identity
            writeOutcome(
                path: intent.path, run: intent.run, sequence: intent.sequence,
                result: intent.present ? "recovered: present" : "recovered: gone")
            recovered.append(intent)
        }
        return recovered
    }
}
