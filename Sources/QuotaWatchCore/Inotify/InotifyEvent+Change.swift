extension FileSystemChange {
    /// The inotify backend's translation, done once by the reader: the bits the engine asks
    /// for become their neutral names, and the watch descriptor is the directory's key.
    package init(_ event: InotifyEvent) {
        var kind = ChangeKind()
        for (bit, neutral) in Self.inotifyKinds where event.mask.contains(bit) { kind.insert(neutral) }
        self.init(
            watch: event.watch, kind: kind, name: event.name, isDirectory: event.mask.contains(.isDirectory),
            cookie: event.cookie)
    }

    private static let inotifyKinds: [(InotifyMask, ChangeKind)] = [
        (.create, .created), (.delete, .removed), (.modify, .modified), (.closeWrite, .closedAfterWrite),
        (.attrib, .attributes), (.movedFrom, .movedFrom), (.movedTo, .movedTo), (.open, .opened),
        (.deleteSelf, .selfRemoved), (.moveSelf, .selfMoved), (.unmount, .unmounted),
        (.queueOverflow, .overflowed), (.ignored, .forgotten),
    ]
}
