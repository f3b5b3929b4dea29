/// The fanotify backend's table from a directory's file handle to its watch number, and back,
/// in about 20 bytes per directory on ext4 (a dictionary each way held 148; one arena with the
/// shape in every entry and an index each way, 45).
///
/// The handles are grouped by shape (file system, type and length: ``HandleShapeTable``), each
/// group a run of fixed-width records `{watch, bytes}` with one index by handle. A file system
/// gives its directories one or two shapes, so a lookup first picks the shape among a few,
/// then probes that group's index. No object, array or dictionary key per directory, and a
/// lookup from an event's bytes allocates nothing.
package struct DirectoryHandleTable: Sendable {
    private var shapes: [HandleShapeTable] = []
    package private(set) var count = 0

    package init() {}

    /// The watch number of the directory whose handle is `handle`, if the table holds it.
    package func watch(of handle: FileHandleKey) -> Int32? {
        handle.withBytes { watch(fileSystem: handle.fileSystem, type: handle.type, bytes: $0) }
    }

    /// The same for a handle read in place (an event's record): no allocation.
    package func watch(fileSystem: UInt64, type: Int32, bytes: UnsafeRawBufferPointer) -> Int32? {
        for shape in shapes where shape.holds(fileSystem: fileSystem, type: type, width: bytes.count) {
            return shape.watch(of: bytes)
        }
        return nil
    }

    /// Adds `handle` under `watch`, greater than every watch added before (watch numbers are
    /// never reused); the caller has checked it is not there yet.
    package mutating func insert(_ handle: FileHandleKey, watch: Int32) {
        let width = Int(handle.count)
        let index =
            shapes.firstIndex { $0.holds(fileSystem: handle.fileSystem, type: handle.type, width: width) }
            ?? {
                shapes.append(HandleShapeTable(fileSystem: handle.fileSystem, type: handle.type, width: width))
                return shapes.count - 1
            }()
        handle.withBytes { shapes[index].insert($0, watch: watch) }
        count += 1
    }

    /// Removes the directory numbered `watch`, if the table holds it.
    package mutating func remove(watch: Int32) {
        for index in shapes.indices where shapes[index].remove(watch: watch) {
            count -= 1
            if shapes[index].count == 0 { shapes.remove(at: index) }
            return
        }
    }

    /// Removes the directory whose handle is `handle`; returns its watch number.
    @discardableResult
    package mutating func remove(_ handle: FileHandleKey) -> Int32? {
        let width = Int(handle.count)
        guard
            let index = shapes.firstIndex(where: {
                $0.holds(fileSystem: handle.fileSystem, type: handle.type, width: width)
            }),
            let watch = handle.withBytes({ shapes[index].remove($0) })
        else { return nil }
        count -= 1
        if shapes[index].count == 0 { shapes.remove(at: index) }
        return watch
    }

    /// Bytes in use, indexes included: what the table costs the daemon's RSS.
    package var footprint: Int { shapes.reduce(0) { $0 + $1.footprint } }
}
