import Foundation
import Glibc

/// Whether a writer that `/proc` reported is this test process. A child that another test
/// spawns at that moment holds a copy of every descriptor between its fork and its exec
/// (O_CLOEXEC closes them only at the exec); once process numbers have wrapped, that child can
/// have a lower number than this process and be the writer a census meets first. So a
/// process whose parent is this one counts as this one. After its exec the copy is gone, and
/// the child may have exited (a zombie keeps its parent), so the check reads the child now.
public func isThisProcessOrItsChild(_ processID: Int32) -> Bool {
    if processID == getpid() { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8),
        let afterName = stat.range(of: ") ", options: .backwards)
    else { return false }
    // After the name: state, then the parent's number.
    let fields = stat[afterName.upperBound...].split(separator: " ")
    return fields.count > 1 && Int32(fields[1]) == getpid()
}
