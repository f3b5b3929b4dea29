import QuotaWatchCleaning
import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import Testing

@Suite("control protocol: the storage page's requests and replies")
struct CleanProtocolTests {
    private func error(_ text: String) -> String? {
        guard case .failure(let failure) = ControlProtocol.decodeRequest(Array(text.utf8)) else { return nil }
        return failure.description
    }

    @Test("a clean_delete request survives the round trip through its line, escapes and all")
    func roundTrip() throws {
        var selection = CleanSelection()
        selection.categories = [.caches, .leftovers]
        selection.cacheGroups = [
            Array("Library/Caches/com.example.feed".utf8), Array("Library/Caches/a".utf8) + [0xFF],
        ]
        selection.kinds = [.video]
        selection.paths = [Array("Documents/caf".utf8) + [0xE9] + Array(".pdf".utf8)]
        selection.olderThan = .seconds(86_400)
        selection.largerThan = 1_000_000
        for request in [
            ControlRequest(.cleanDelete(CleanDeleteRequest(selection: selection, dryRun: true))),
            ControlRequest(.cleanList),
        ] {
            let line = request.encodedLine()
            #expect(try ControlProtocol.decodeRequest(Array(line.dropLast())).get() == request)
        }
    }

    @Test(
        "a clean_delete request that names nothing, or names it wrong, is refused naming the field",
        arguments: [
            (#"{"command":"clean_delete"}"#, "names no category, kind or path"),
            (#"{"command":"clean_delete","categories":["user-files"]}"#, "add --kind KIND"),
            (#"{"command":"clean_delete","categories":["bogus"]}"#, "unknown category 'bogus'"),
            (#"{"command":"clean_delete","categories":"tmp"}"#, "'categories' must be an array of strings"),
            (#"{"command":"clean_delete","categories":["tmp"],"older_than_ms":-1}"#, "'older_than_ms' must be"),
            (#"{"command":"clean_delete","categories":["tmp"],"bogus":1}"#, "unknown field 'bogus'"),
            (#"{"command":"clean_list","sync":true}"#, "unknown field 'sync' in a clean_list request"),
        ])
    func refused(line: String, message: String) {
        #expect(error(line)?.contains(message) == true, "\(String(describing: error(line)))")
    }

    @Test("the listing's rows carry what the page needs, and come back as the same items")
    func listingRoundTrip() throws {
        let status = FileStatus(
            device: 7, inode: 99, kind: .regular, linkCount: 2, apparentBytes: 1000, allocatedBytes: 4096,
            modifiedNanoseconds: 1_600_000_000_123_456_789)
        let items = try [
            #require(CleanItem(path: Array("tmp/CFNetworkDownload_a.tmp".utf8), status: status)),
            #require(CleanItem(path: Array("Documents/caf".utf8) + [0xE9, 0x5C] + Array(".mov".utf8), status: status)),
        ]
        let engine = EngineReport(events: 3, rescannedDirectories: 0, overflows: 0, watches: 9, degraded: [])
        let reply = CleanListing(root: "/r", items: items, engine: engine).replyJSON()
        #expect(String(decoding: reply, as: UTF8.self).contains(#""columns":["path","category","allocated""#))
        let decoded = try CleanListing.decode(reply)
        #expect(decoded.items == items && decoded.engine == engine && decoded.root == "/r")
    }
}
