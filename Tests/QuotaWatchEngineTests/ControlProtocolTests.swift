import QuotaWatchCore
import QuotaWatchEngine
import Testing

@Suite("control protocol")
struct ControlProtocolTests {
    private func decode(_ text: String) -> Result<ControlRequest, ControlProtocol.Failure> {
        ControlProtocol.decodeRequest(Array(text.utf8))
    }

    private func error(_ text: String) -> String? {
        guard case .failure(let failure) = decode(text) else { return nil }
        return failure.description
    }

    @Test("a request from an earlier client still means the whole tree")
    func earlierClients() throws {
        #expect(try decode(#"{"command":"status"}"#).get() == ControlRequest(.status(.tree(TreeSelection()))))
        #expect(
            try decode(#"{"command":"status","sync":true}"#).get()
                == ControlRequest(.status(.tree(TreeSelection())), sync: true))
        #expect(try decode(#"{"command":"status","sync":false}"#).get().sync == false)
    }

    @Test(
        "every selection survives the round trip through its line",
        arguments: [
            ControlRequest(.status(.tree(TreeSelection(depth: 1)))),
            ControlRequest(.status(.tree(TreeSelection(subtree: Array("Library/Caches".utf8), depth: 2))), sync: true),
            ControlRequest(.status(.tree(TreeSelection(subtree: [0x61, 0xFF, 0x5C], top: 10)))),
            ControlRequest(.status(.tree(TreeSelection(subtree: Array("tmp".utf8), depth: 1, top: 5, files: 7)))),
            ControlRequest(.status(.quotas)),
            ControlRequest(.clean(CleanupRunRequest())),
            ControlRequest(.clean(CleanupRunRequest(trigger: "nightly.1", dryRun: true))),
        ])
    func roundTrip(request: ControlRequest) throws {
        let line = request.encodedLine()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(try ControlProtocol.decodeRequest(Array(line.dropLast())).get() == request)
    }

    @Test("the line is small and names only what differs from the defaults")
    func line() {
        let request = ControlRequest(.status(.tree(TreeSelection(subtree: Array("a/b".utf8), depth: 1))))
        #expect(
            String(decoding: request.encodedLine(), as: UTF8.self) == #"{"command":"status","depth":1,"path":"a/b"}"#
                + "\n")
    }

    @Test("a clean request: its trigger name and dry run, checked")
    func clean() throws {
        #expect(try decode(#"{"command":"clean"}"#).get() == ControlRequest(.clean(CleanupRunRequest())))
        #expect(
            try decode(#"{"command":"clean","trigger":"by-hand","dry_run":true}"#).get()
                == ControlRequest(.clean(CleanupRunRequest(trigger: "by-hand", dryRun: true))))
        #expect(
            error(#"{"command":"clean","depth":1}"#)
                == "unknown field 'depth' in a clean request; its fields are command, trigger, dry_run")
        #expect(error(#"{"command":"clean","trigger":"a b"}"#)?.contains("not 'a b'") == true)
        #expect(error(#"{"command":"clean","dry_run":"yes"}"#) == "'dry_run' must be true or false")
    }

    @Test("each mistake gets an error naming the field and what it must be")
    func errors() {
        #expect(
            error(#"{"command":"frobnicate"}"#)
                == "unknown command 'frobnicate'; the commands are " + ControlCommand.names.joined(separator: ", "))
        #expect(ControlCommand.names.starts(with: ["status", "clean"]))
        #expect(error(#"{"sync":true}"#)?.contains(#"has no "command""#) == true)
        #expect(error(#"{"command":7}"#) == #"'command' must be a string such as "status""#)
        #expect(
            error(#"{"command":"status","dept":1}"#)
                == "unknown field 'dept' in a status request; its fields are command, depth, files, path, select, sync, top"
        )
        #expect(error(#"{"command":"status","depth":-1}"#) == "'depth' must be a whole number, 0 or more, not -1")
        #expect(error(#"{"command":"status","depth":"all"}"#) == "'depth' must be a whole number, 0 or more")
        #expect(error(#"{"command":"status","top":0}"#) == "'top' must be a whole number, 1 or more, not 0")
        #expect(error(#"{"command":"status","files":0}"#) == "'files' must be a whole number, 1 or more, not 0")
        #expect(error(#"{"command":"status","files":"all"}"#) == "'files' must be a whole number, 1 or more")
        #expect(
            error(#"{"command":"status","select":"quotas","files":5}"#)
                == #"'files' applies to select "tree", not "quotas""#)
        #expect(error(#"{"command":"status","sync":"yes"}"#) == "'sync' must be true or false")
        #expect(error(#"{"command":"status","path":"/etc"}"#)?.contains("absolute") == true)
        #expect(error(#"{"command":"status","path":"../x"}"#)?.contains("'..'") == true)
        #expect(
            error(#"{"command":"status","select":"everything"}"#)
                == "unknown select 'everything'; it is one of tree, quotas")
        #expect(
            error(#"{"command":"status","select":"quotas","depth":1}"#)
                == #"'depth' applies to select "tree", not "quotas""#)
        #expect(error("[1,2]")?.hasPrefix("malformed request") == true)
    }

    @Test("a status reply crosses the socket as rows and reads back as the documented report")
    func statusWire() throws {
        let engine = EngineReport(
            events: 3, rescannedDirectories: 1, overflows: 0, watches: 2, degraded: [], requests: 4, cpuSeconds: 0.5)
        let rows = [
            DirectoryRow(path: [], tally: Tally(usage: Usage(allocated: 8192, apparent: 100), files: 2, dirs: 1)),
            DirectoryRow(
                path: [0x61, 0xFF], tally: Tally(usage: Usage(allocated: 4096, apparent: 50), files: 1, dirs: 0)),
        ]
        let snapshot = StatusSnapshot(root: "/r", rows: rows, engine: engine)
        let wire = String(decoding: snapshot.replyJSON(), as: UTF8.self)
        #expect(wire.contains(#""rows":[[".",8192,100,2,1],["a\\xff",4096,50,1,0]]"#))
        #expect(try StatusWire.report(from: snapshot.replyJSON()) == snapshot.report)
        #expect(snapshot.report.directories.map(\.path) == [".", #"a\xff"#])
        // No files asked for: no "files" member, in the reply or in status --json.
        #expect(!wire.contains(#""files":["#))
        #expect(!String(decoding: snapshot.report.encodedJSON(), as: UTF8.self).contains(#""files":["#))

        // Files asked for: their rows in the same columns, read back in their order.
        let file = DirectoryRow(
            path: Array("a\u{1b}.mov".utf8),
            tally: Tally(usage: Usage(allocated: 30_003_200, apparent: 30_000_000), files: 1, dirs: 0))
        let withFiles = StatusSnapshot(root: "/r", rows: rows, engine: engine, files: [file])
        let filesWire = String(decoding: withFiles.replyJSON(), as: UTF8.self)
        #expect(filesWire.contains(#""files":[["a\u001b.mov",30003200,30000000,1,0]]"#), "\(filesWire)")
        let read = try StatusWire.report(from: withFiles.replyJSON())
        #expect(read == withFiles.report)
        #expect(read.files?.map(\.path) == ["a\u{1b}.mov"])

        let foreign = Array(
            #"{"columns":["name"],"rows":[],"root":"/r","engine":{"events":0,"rescanned_dirs":0,"overflows":0,"watches":0,"degraded":[],"requests":0,"cpu_seconds":0}}"#
                .utf8)
        #expect(throws: (any Error).self) { try StatusWire.report(from: foreign) }
    }
}
