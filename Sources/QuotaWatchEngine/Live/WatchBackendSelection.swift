/// `--backend`: which kernel interface tells the engine about changes.
public enum BackendChoice: String, Sendable, CaseIterable {
    /// fanotify where it can work here, else inotify.
    case auto
    case inotify
    case fanotify
}
