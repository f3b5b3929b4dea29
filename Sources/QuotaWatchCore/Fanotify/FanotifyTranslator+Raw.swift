extension FanotifyTranslator {
    /// Translates what one `read` returned, straight from its bytes: an event that is neither an
    /// overflow nor a rename and whose directory `table` does not hold (elsewhere on the file
    /// system: most of what a filesystem mark reports) is judged in place from its mask and
    /// handles, with one lookup and no allocation; the rest are decoded and translated as
    /// ``translate(_:watch:)`` does. The output is the same as decoding the whole buffer first.
    package mutating func translate(raw bytes: UnsafeRawBufferPointer, table: DirectoryHandleTable) -> Output {
        var output = Output()
        var decoded: [FanotifyEvent] = []
        FanotifyEventPeek.forEach(in: bytes) { peek in
            if !peek.mask.contains(.queueOverflow), !peek.mask.contains(.rename), let directory = peek.directory,
                table.watch(fileSystem: directory.fileSystem, type: directory.type, bytes: directory.bytes) == nil
            {
                translateOutside(peek.mask, object: peek.object?.key, into: &output)
                return
            }
            decoded.removeAll(keepingCapacity: true)
            FanotifyEvent.decode(raw: peek.bytes, into: &decoded)
            for event in decoded {
                translate(event, watch: { table.watch(of: $0) }, into: &output)
            }
        }
        return output
    }
}
