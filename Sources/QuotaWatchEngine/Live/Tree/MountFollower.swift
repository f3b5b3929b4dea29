import QuotaWatchCore
import QuotaWatchSystem
import Synchronization

/// Follows mounts below ROOT for the engine: a thread waits for the kernel to say that the
/// mount table changed (`POLLPRI` on `/proc/self/mountinfo`) and posts ``EngineMessage/mountsChanged``;
/// the engine then reads the table on its own thread and looks at every place below ROOT
/// where something is or was mounted (``LiveTree/followMountChange(at:)``).
///
/// Everything but ``stop()`` is called on the engine thread; the locks are never contended.
final class MountFollower: Sendable {
    private let table: MountTable
    private let points: Mutex<MountPointsBelowRoot>
    /// The overlayfs devices as of the last reading (``MountEntry/copyUpDevices(in:)``).
    private let overlays: Mutex<Set<UInt64>>
    private let thread = Mutex<JoinableThread?>(nil)
    /// Where the process's one wait for changes tells this root's mailbox, when it has one.
    private let sharedWait = Mutex<(services: SharedRootServices, mailbox: Mailbox)?>(nil)

    /// Reads the table as it is before the first crawl, so that every later change is seen.
    /// Nil when there is no mount table to read (no /proc), or ROOT's path is unknown.
    init?(rootPath: [UInt8]?) {
        guard let rootPath, let table = try? MountTable() else { return nil }
        guard let entries = try? table.read() else {
            table.close()
            return nil
        }
        self.table = table
        points = Mutex(MountPointsBelowRoot(root: rootPath, table: entries))
        overlays = Mutex(MountEntry.copyUpDevices(in: entries))
    }

    /// The devices of the overlayfs mounts as of the last reading of the table.
    var copyUpDevices: Set<UInt64> { overlays.withLock { $0 } }

    /// Waits for changes on a thread of its own, or, with `shared`, on the process's one.
    func start(mailbox: Mailbox, shared: SharedRootServices? = nil) {
        if let shared, shared.followMounts(mailbox) {
            sharedWait.withLock { $0 = (shared, mailbox) }
            return
        }
        let table = self.table
        let started = JoinableThread(name: "mounts") {
            while (try? table.waitForChange()) == true { mailbox.post(.mountsChanged) }
        }
        thread.withLock { $0 = started }
    }

    /// The places to look at again, shallowest first (none when the table cannot be read).
    func placesToCheck() -> [[[UInt8]]] {
        guard let entries = try? table.read() else { return [] }
        overlays.withLock { $0 = MountEntry.copyUpDevices(in: entries) }
        return points.withLock { $0.update(entries) }
    }

    /// Takes the table as it is now without looking at any place: a fresh crawl follows.
    func resetBaseline() { _ = placesToCheck() }

    func stop() {
        if let wait = sharedWait.withLock({ $0 }) { wait.services.unfollowMounts(wait.mailbox) }
        table.stop()
        thread.withLock { $0 }?.join()
        table.close()
    }
}

extension MountFollower {
    /// Reads the mount table and lists again each place below ROOT whose mount changed; with
    /// no follower (no table to read) the tree's hint is only taken.
    static func follow(_ follower: MountFollower?, in live: inout LiveTree<KernelFileSystem>) {
        live.noteMountTableRead()
        guard let follower else { return }
        let places = follower.placesToCheck()
        live.copyUpDevices = follower.copyUpDevices
        for place in places { live.followMountChange(at: place) }
    }
}
