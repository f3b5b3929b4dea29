import QuotaWatchCore
import QuotaWatchSystem

/// The one place an inotify event becomes a change.
struct InotifyEventSource: KernelEventSource {
    let inotify: InotifyDescriptor
    var descriptor: FileDescriptor { inotify.descriptor }

    func read(buffer: inout [UInt8], into batch: inout KernelEventBatch) throws(Errno) -> KernelRead {
        let count = try inotify.readEventBytes(buffer: &buffer) { batch.changes.append(FileSystemChange($0)) }
        return KernelRead(bytes: count, bufferCount: buffer.count)
    }

    func close() { inotify.close() }
}
