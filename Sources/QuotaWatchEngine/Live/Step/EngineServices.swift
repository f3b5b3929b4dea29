import Dispatch
import QuotaWatchCore
import QuotaWatchPolicy
import QuotaWatchSystem

/// What `run` starts before the first crawl, outside the engine's loop: ROOT's descriptor, the
/// control server, the change backend, the signal thread, the `--events` writer and the mount
/// follower, each posting to the engine's mailbox. ``stop()`` undoes them in the reverse order
/// (joining every thread, closing ROOT last); a start that fails undoes what it had started.
struct EngineServices {
    let root: FileDescriptor
    let rootStatus: FileStatus
    let server: ControlServer
    let backend: any ChangeBackend
    let backendName: String
    let backendReason: String
    let events: LineWriter?
    /// Mounts and unmounts below ROOT; nil when the mount table cannot be read.
    let mounts: MountFollower?
    private let undo: [() -> Void]

    func stop() { for step in undo.reversed() { step() } }

    private static func startDispatchEventLoop() {
        let fired = DispatchSemaphore(value: 0)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { fired.signal() }
        timer.schedule(deadline: .now())
        timer.resume()
        fired.wait()
        timer.cancel()
    }

    static func start(_ options: EngineOptions, mailbox: Mailbox) -> Result<EngineServices, EngineFailure> {
        let opened: (descriptor: FileDescriptor, status: FileStatus)
        do {
            opened = try TreeScanner().openRoot(options.root)
        } catch {
            return .failure(.root(error.description))
        }
        let root = opened.descriptor
        var undo: [() -> Void] = [{ root.close() }]
        func failed(_ failure: EngineFailure) -> Result<EngineServices, EngineFailure> {
            for step in undo.reversed() { step() }
            return .failure(failure)
        }

        // libdispatch makes its epoll, eventfd and timerfd descriptors on its own threads when
        // first needed, and traps if it cannot: under a low limit, on a thread racing this one
        // for the last descriptors. A timer that has fired proves all three exist, so wait for
        // one now, while descriptors are plentiful, for the Swift concurrency (cleanup runs) and
        // Dispatch users that come later.
        Self.startDispatchEventLoop()

        let server: ControlServer
        do {
            var serverOptions = ControlServer.Options()
            serverOptions.eventRoot = options.rootDisplay
            server = try ControlServer(socketPath: options.socketPath, options: serverOptions) { request, reply in
                mailbox.post(.request(request, reply))
            }
        } catch {
            return failed(.controlSocket("\(error)"))
        }
        server.start()
        // Before the first request can come: the config's names are taken, its timeout in force.
        server.registeredCleaners.configure(options.policy.cleanup)
        // Answers the requests still waiting (syncs included) with "shutting down", then
        // joins every connection thread.
        undo.append { server.stop() }

        let selected: SelectedBackend
        switch WatchBackendSelection.open(
            options.backend, root: root, shared: options.sharedBackends,
            changedFiles: { mailbox.post(.filesChanged($0)) })
        {
        case .success(let opened): selected = opened
        case .failure(.inotify(let error)):
            return failed(
                .system(
                    "cannot start inotify: \(error). Check fs.inotify.max_user_instances (now \(InotifyLimits.current().maxUserInstances))."
                ))
        case .failure(.reader(let error)):
            return failed(
                .system(
                    "cannot start the \(options.backend.rawValue) reader: \(DescriptorShortage.startupReason(error))"))
        case .failure(.fanotify(let unavailable)):
            return failed(.system("--backend fanotify cannot work here: \(unavailable.reason)"))
        }
        let backend = selected.backend
        Log.notice("watching \(HumanText.escaped(options.rootDisplay)) with \(selected.name) (\(selected.reason))")
        backend.start(changes: { mailbox.post(.events($0)) }, failed: { mailbox.post(.readerFailed($0)) })
        undo.append { backend.stop() }

        if options.waitsForSignals {
            let signals: TerminationSignalWaiter
            do {
                signals = try TerminationSignalWaiter()
            } catch {
                return failed(.system("cannot wait for signals: \(DescriptorShortage.startupReason(error))"))
            }
            let signalThread = JoinableThread(name: "signals") {
                while let signal = signals.wait() {
                    guard signal == TerminationSignals.hangup else {
                        mailbox.post(.shutdown(signal: signal))
                        return
                    }
                    mailbox.requestReload()
                }
            }
            undo.append {
                signals.stop()
                signalThread.join()
                signals.close()
            }
        }

        let shared = options.sharedServices
        let events = options.emitsEvents ? (shared?.events() ?? LineWriter(descriptor: .standardOutput)) : nil
        // A shared writer goes on for the other roots: this root's lines are written, no more.
        undo.append { if shared == nil { events?.stop() } else { events?.drain() } }

        // Read before the first crawl, so that no mount made during it goes unseen.
        let mounts = MountFollower(rootPath: root.canonicalPath)
        mounts?.start(mailbox: mailbox, shared: shared)
        undo.append { mounts?.stop() }
        // Every descriptor the daemon keeps is open now: fail here, saying so, rather than
        // start with none left for the history, the crawl or a connection.
        if let shortfall = DescriptorShortage.startupShortfall() { return failed(.system(shortfall)) }
        return .success(
            EngineServices(
                root: root, rootStatus: opened.status, server: server, backend: backend, backendName: selected.name,
                backendReason: selected.reason, events: events, mounts: mounts, undo: undo))
    }
}
