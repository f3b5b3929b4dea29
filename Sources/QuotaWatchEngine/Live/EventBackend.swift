/// The kernel interface changes are read from, as `run --backend` names it. The engine reads
/// inotify today whatever is chosen; the fanotify backend plugs in behind this choice.
public enum EventBackend: String, Sendable, CaseIterable {
    /// The best one this machine offers.
    case auto
    case inotify
    case fanotify
}
