/// One directory's entries with their status, as the crawler hands them to the tree owner.
///
/// Names live in one byte buffer so a listing of thousands of entries costs two allocations,
/// not one per name. Names are raw bytes: nothing here assumes UTF-8.
package struct DirectoryListing: Sendable {
    package struct Entry: Sendable {
        package var nameStart: Int32
        package var nameLength: UInt16
        package var status: FileStatus
        /// For subdirectories: the crawler's number for the work item that will list it.
        package var crawlIndex: UInt32

        package init(nameStart: Int32, nameLength: UInt16, status: FileStatus, crawlIndex: UInt32 = .max) {
            self.nameStart = nameStart
            self.nameLength = nameLength
            self.status = status
            self.crawlIndex = crawlIndex
        }
    }

    package var nameBytes: [UInt8] = []
    package var entries: [Entry] = []

    package init() {}

    // Inlinable so the crawler's call with a raw buffer is specialised in its own module
    // instead of going through generic witnesses for every byte.
    @inlinable
    package func name(of entry: Entry) -> ArraySlice<UInt8> {
        let start = Int(entry.nameStart)
        return nameBytes[start..<start + Int(entry.nameLength)]
    }

    /// The crawler's call, with a name's bytes in the `getdents64` buffer. Not generic: the
    /// generic one below, called from the system module, ran unspecialized, and looked the
    /// runtime's generic metadata up for every name (perf: about 6 % of a scan's CPU).
    package mutating func append(rawName name: UnsafeRawBufferPointer, status: FileStatus, crawlIndex: UInt32) {
        let start = Int32(nameBytes.count)
        unsafe nameBytes.append(contentsOf: name)
        entries.append(Entry(nameStart: start, nameLength: UInt16(name.count), status: status, crawlIndex: crawlIndex))
    }

    @inlinable
    package mutating func append(name: some Collection<UInt8>, status: FileStatus, crawlIndex: UInt32 = .max) {
        let start = Int32(nameBytes.count)
        nameBytes.append(contentsOf: name)
        entries.append(Entry(nameStart: start, nameLength: UInt16(name.count), status: status, crawlIndex: crawlIndex))
    }
}
