import QuotaWatchCore
import Testing

@Suite("backend-neutral changes")
struct FileSystemChangeTests {
    @Test("each inotify bit the engine asks for becomes its neutral kind, and nothing else does")
    func inotifyBitsBecomeNeutralKinds() {
        let pairs: [(InotifyMask, ChangeKind)] = [
            (.create, .created), (.delete, .removed), (.modify, .modified), (.closeWrite, .closedAfterWrite),
            (.attrib, .attributes), (.movedFrom, .movedFrom), (.movedTo, .movedTo), (.open, .opened),
            (.deleteSelf, .selfRemoved), (.moveSelf, .selfMoved), (.unmount, .unmounted),
            (.queueOverflow, .overflowed), (.ignored, .forgotten),
        ]
        for (mask, kind) in pairs {
            let change = FileSystemChange(InotifyEvent(watch: 7, mask: mask, cookie: 9, name: [0x61, 0xff]))
            #expect(change == FileSystemChange(watch: 7, kind: kind, name: [0x61, 0xff], cookie: 9), "\(mask)")
        }
        // Bits the engine never asks for carry no meaning for the tree.
        let unasked = FileSystemChange(InotifyEvent(watch: 1, mask: [.access, .closeNoWrite], name: [0x62]))
        #expect(unasked.kind.isEmpty)
    }

    @Test("the directory flag and a combination of bits survive the conversion")
    func directoryFlagAndCombinations() {
        let change = FileSystemChange(InotifyEvent(watch: 3, mask: [.create, .modify, .isDirectory], name: [0x64]))
        #expect(change.isDirectory)
        #expect(change.kind == [.created, .modified])
        #expect(!FileSystemChange(InotifyEvent(watch: 3, mask: .create, name: [0x64])).isDirectory)
    }

    @Test("a change is traced in inotifywait's words whatever the backend")
    func tracedInInotifywaitWords() {
        #expect(
            FileSystemChange(watch: 1, kind: .created, name: [0x61], isDirectory: true).description == "CREATE,ISDIR")
        #expect(FileSystemChange(watch: 1, kind: [.removed, .modified]).description == "MODIFY,DELETE")
        #expect(FileSystemChange.overflow.description == "Q_OVERFLOW")
        #expect(FileSystemChange(watch: 1, kind: []).description == "0x0")
    }
}
