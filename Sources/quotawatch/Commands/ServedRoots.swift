import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchSystem

/// `quotawatch status` with no ROOT and no --socket: the roots served, whichever daemon serves
/// them (one daemon may serve many). Each socket in this user's default socket directory, and
/// the `--socket` of each daemon running, is asked for its root's totals; a socket nobody
/// answers on (a daemon killed without removing it) is passed over.
enum ServedRoots {
    static func list(json: Bool, format: ByteFormat, timeout: Int) -> ExitStatus {
        var roots: [ServedRootsDocument.Root] = []
        for socket in candidateSockets() {
            let request = ControlRequest(.status(.tree(TreeSelection(depth: 0))), sync: false)
            guard let reply = try? ControlClient.request(socketPath: socket, request, timeout: .seconds(timeout)),
                let report = try? StatusWire.report(from: reply),
                let top = report.directories.first(where: { $0.path == "." })
            else { continue }
            roots.append(
                ServedRootsDocument.Root(
                    root: report.root, socket: EscapedName.string(socket), allocated: top.allocated,
                    apparent: top.apparent, files: top.files, dirs: top.dirs, events: report.engine.events))
        }
        let document = ServedRootsDocument(roots: roots)
        if json {
            Console.json(String(decoding: document.encodedJSON(), as: UTF8.self) + "\n")
        } else if document.roots.isEmpty {
            Console.error("quotawatch: no root is served: start a daemon with 'quotawatch run ROOT...'\n")
        } else {
            Console.out(render(document, format: format))
        }
        return document.roots.isEmpty ? .failure : .success
    }

    /// One row per root: its totals and the socket `status ROOT` reaches it on.
    static func render(_ document: ServedRootsDocument, format: ByteFormat) -> String {
        let rows = document.roots.map { root in
            [
                format.string(root.allocated), format.string(root.apparent), "\(root.files)", "\(root.dirs)",
                root.root, root.socket,
            ]
        }
        let header = ["ALLOCATED", "APPARENT", "FILES", "DIRS", "ROOT", "SOCKET"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                // Numbers right-aligned, paths left-aligned; the last column unpadded.
                return column < 4 ? pad + cell : column == cells.count - 1 ? cell : cell + pad
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
            + "\(document.roots.count) root(s) served; ask one with: quotawatch status ROOT\n"
    }

    /// The default directory's sockets, then each running daemon's own --socket, each once.
    private static func candidateSockets() -> [[UInt8]] {
        var sockets: [[UInt8]] = []
        let any = SocketPath.defaultPath(forRoot: Array("/".utf8))
        let directory = Array(any[..<(any.lastIndex(of: UInt8(ascii: "/")) ?? any.startIndex)])
        if let opened = try? FileDescriptor.currentWorkingDirectory.openDirectory(directory, followSymlinks: true) {
            defer { opened.close() }
            for name in ((try? DirectoryEntries.names(of: opened)) ?? []).sorted(by: {
                $0.lexicographicallyPrecedes($1)
            })
            where name.count > 5 && name.suffix(5).elementsEqual(".sock".utf8) {
                sockets.append(directory + [UInt8(ascii: "/")] + name)
            }
        }
        for daemon in RunningDaemons.running() {
            for socket in daemon.sockets.map(RootOptions.absoluteBytes) where !sockets.contains(socket) {
                sockets.append(socket)
            }
        }
        return sockets
    }
}
