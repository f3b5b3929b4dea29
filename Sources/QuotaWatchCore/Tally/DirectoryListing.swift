/// One directory's entries with their status, as the crawler hands them to the tree owner.
///
/// Names live in one byte buffer so a listing of thousands of entries costs two allocations,
/// not one per name. Names are raw bytes: nothing here assumes UTF-8.
public struct DirectoryListing: Sendable {
    public struct Entry: Sendable {
        public var nameStart: Int32
        public var nameLength: UInt16
        public var status: FileStatus
        /// For subdirectories: the crawler's number for the work item that will list it.
        public var crawlIndex: UInt32

        public init(nameStart: Int32, nameLength: UInt16, status: FileStatus, crawlIndex: UInt32 = .max) {
            self.nameStart = nameStart
            self.nameLength = nameLength
            self.status = status
            self.crawlIndex = crawlIndex
        }
    }

    public var nameBytes: [UInt8] = []
    public var entries: [Entry] = []

    public init() {}

    // Inlinable so the crawler's call with a raw buffer is specialised in its own module
    // instead of going through generic witnesses for every byte.
    @inlinable
    public func name(of entry: Entry) -> ArraySlice<UInt8> {
        let start = Int(entry.nameStart)
        return nameBytes[start..<start + Int(entry.nameLength)]
    }

    @inlinable
    public mutating func append(name: some Collection<UInt8>, status: FileStatus, crawlIndex: UInt32 = .max) {
        let start = Int32(nameBytes.count)
        nameBytes.append(contentsOf: name)
        entries.append(Entry(nameStart: start, nameLength: UInt16(name.count), status: status, crawlIndex: crawlIndex))
    }
}
