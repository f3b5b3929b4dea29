import Foundation
import Glibc
import QuotaWatchSystem

/// A fresh temporary directory, removed with everything in it when released.
final class ScratchDirectory {
    let path: String

    init() throws {
        let temporary = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        var template = Array("\(temporary)qw-child.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw Errno(rawValue: errno) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    func contents(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: file(name))), as: UTF8.self)
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
