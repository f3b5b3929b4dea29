import Foundation
import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

// quotawatch-cleanup-probe delete ROOT STATE PATH...   one line per path: PATH OUTCOME
//   QUOTAWATCH_PROBE_WALK=openat2|perComponent   how the deleter walks (default: automatic)
//   QUOTAWATCH_PROBE_DRY_RUN=1                   check everything, remove nothing
//   QUOTAWATCH_PROBE_WRITERS=proc                ask /proc (and the kernel) about writers
// quotawatch-cleanup-probe loop ROOT STATE             removes files/* over and over, forever
// quotawatch-cleanup-probe recover ROOT STATE          resolves dangling intents: PATH gone|present

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments.dropFirst().map { Array($0.utf8) }
guard arguments.count >= 3 else { fail("usage: quotawatch-cleanup-probe delete|loop|recover ROOT STATE [PATH...]") }
let command = String(decoding: arguments[0], as: UTF8.self)
let root: FileDescriptor
let log: AuditLog
let deleter: Deleter
do {
    root = try FileDescriptor.currentWorkingDirectory.openDirectory(arguments[1])
    log = try AuditLog(directory: arguments[2])
    let environment = ProcessInfo.processInfo.environment
    let walk: Deleter.WalkMethod =
        switch environment["QUOTAWATCH_PROBE_WALK"] {
        case "openat2": .openat2
        case "perComponent": .perComponent
        default: .automatic
        }
    let noWriters: Deleter.WriterCheck = { _ throws(Errno) in .noWriter }
    deleter = try Deleter(
        root: root, dryRun: environment["QUOTAWATCH_PROBE_DRY_RUN"] == "1", isProtected: { _ in false },
        openWriter: environment["QUOTAWATCH_PROBE_WRITERS"] == "proc" ? nil : noWriters, walk: walk)
} catch {
    fail("cannot start: \(error)")
}

func describe(_ outcome: DeletionOutcome) -> String {
    switch outcome {
    case .removed(let removal):
        "removed \(removal.entries.count)"
            + removal.kept.map { " kept \(EscapedName.string($0.path))=\($0.reason.code)" }.joined()
    case .skipped(let reason): "skipped \(reason.code)"
    case .failed(let error): "failed \(error)"
    case .notRecorded(let error): "not_recorded \(error.message)"
    }
}

func removeOnce(_ path: [UInt8]) -> String {
    guard let status = try? root.status(of: path) else { return "missing" }
    let audit = AuditContext(rule: "probe", trigger: "manual", cleaner: "probe", run: "probe-\(getpid())")
    return describe(deleter.remove(path, expecting: FileIdentity(status), journal: log.journal(audit)))
}

switch command {
case "delete":
    for path in arguments.dropFirst(3) { say(EscapedName.string(path) + " " + removeOnce(path)) }
case "loop":
    say("started")
    while true {
        let directory = Array("files".utf8)
        guard
            let names = try? FileManager.default.contentsOfDirectory(
                atPath: String(decoding: arguments[1] + [0x2f] + directory, as: UTF8.self))
        else {
            fail("cannot list files")
        }
        for name in names.sorted() { _ = removeOnce(directory + [0x2f] + Array(name.utf8)) }
    }
case "recover":
    do {
        for intent in try log.recover(using: deleter) {
            say(EscapedName.string(intent.path) + (intent.present ? " present" : " gone"))
        }
    } catch {
        fail("cannot recover: \(error)")
    }
default:
    fail("unknown command \(command)")
}
