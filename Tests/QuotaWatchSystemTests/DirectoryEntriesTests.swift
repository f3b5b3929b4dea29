import CQuotaWatchShims
import Glibc
import QuotaWatchCore
import QuotaWatchSystem
import Testing

/// The one `getdents64` decoder, which the crawler, the `/proc` scans and the deleter share:
/// its record walk on hand-made buffers, and its listings of a real directory.
@Suite("directory entries: one getdents64 reader")
struct DirectoryEntriesTests {
    /// `struct linux_dirent64` records as the kernel writes them: inode, offset, record
    /// length, type, the name and its NUL, padded to 8 bytes.
    private static func records(_ names: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, name) in names.enumerated() {
            let length = (Int(QW_DIRENT_NAME_OFFSET) + name.count + 1 + 7) / 8 * 8
            var record = [UInt8](repeating: 0, count: length)
            record[0] = UInt8(index + 1)
            record[Int(QW_DIRENT_RECLEN_OFFSET)] = UInt8(length & 0xff)
            record[Int(QW_DIRENT_RECLEN_OFFSET) + 1] = UInt8(length >> 8)
            record.replaceSubrange(
                Int(QW_DIRENT_NAME_OFFSET)..<(Int(QW_DIRENT_NAME_OFFSET) + name.count), with: name)
            bytes += record
        }
        return bytes
    }

    private static func decoded(_ bytes: [UInt8]) -> [[UInt8]] {
        var names: [[UInt8]] = []
        bytes.withUnsafeBytes { raw in DirectoryEntries.forEachName(in: raw) { names.append(Array($0)) } }
        return names
    }

    @Test("every name but . and .. comes out byte for byte: not UTF-8, 255 bytes, a dot prefix")
    func decodesRecords() {
        let names: [[UInt8]] = [
            Array(".".utf8), Array("..".utf8), Array("a".utf8), [0x66, 0xff, 0x0a, 0x5c],
            [UInt8](repeating: 0x78, count: 255), Array("...".utf8), Array(".hidden".utf8),
        ]
        #expect(Self.decoded(Self.records(names)) == Array(names.dropFirst(2)))
    }

    @Test("a record cut short, or one of length 0, ends the walk instead of reading past the buffer or spinning")
    func malformedRecordsEndTheWalk() {
        let whole = Self.records([Array("first".utf8), Array("second".utf8)])
        #expect(Self.decoded(Array(whole.dropLast(3))) == [Array("first".utf8)])
        var zeroLength = whole
        let second = Int(whole[Int(QW_DIRENT_RECLEN_OFFSET)])
        zeroLength[second + Int(QW_DIRENT_RECLEN_OFFSET)] = 0
        #expect(Self.decoded(zeroLength) == [Array("first".utf8)])
        #expect(Self.decoded([]) == [])
    }

    @Test("a directory listed a small buffer at a time gives each name once, as the reader of the crawler does")
    func listsARealDirectoryInManyReads() throws {
        let scratch = try ScratchDirectory()
        var made: Set<[UInt8]> = []
        for index in 0..<600 {
            let name = "entry-\(index)-" + String(repeating: "n", count: index % 40)
            #expect(creat(scratch.file(name), 0o644) >= 0)
            made.insert(Array(name.utf8))
        }
        let directory = try FileDescriptor.currentWorkingDirectory.openDirectory(Array(scratch.path.utf8))
        defer { directory.close() }

        let listed = try DirectoryEntries.names(of: directory, bufferSize: 1024)
        #expect(listed.count == made.count)
        #expect(Set(listed) == made)

        // The crawler's reader goes through the same decoder, with a stat per name.
        let again = try FileDescriptor.currentWorkingDirectory.openDirectory(Array(scratch.path.utf8))
        defer { again.close() }
        let reader = DirectoryReader(bufferSize: 1024)
        var listing = DirectoryListing()
        var problems = DirectoryReader.Problems()
        var reads = 0
        while try reader.listMore(again, into: &listing, problems: &problems, crawlIndex: { 0 }) { reads += 1 }
        #expect(reads > 1, "a 1 KiB buffer takes several reads for 600 names")
        #expect(listing.entries.count == made.count)
        #expect(problems.unstatable.isEmpty)
    }
}
