import QuotaWatchCore
import QuotaWatchSystem

/// The one place an inotify event becomes a change.
struct InotifyEventSource: KernelEventSource {
    let inotify: InotifyDescriptor
    var descriptor: FileDescriptor { inotify.descriptor }

    func read(buffer: inout [UInt8], into batch: inout KernelEventBatch) throws(Errno) -> Bool {
        var events: [InotifyEvent] = []
        guard try inotify.readEvents(buffer: &buffer, into: &events) else { return false }
        batch.changes += events.map(FileSystemChange.init)
        return true
    }

    func close() { inotify.close() }
}
