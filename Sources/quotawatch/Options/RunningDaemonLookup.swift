import QuotaWatchCore
import QuotaWatchSystem

/// ``RunningDaemons`` read with the options `run` and `watch` declare: a value given to one of
/// them (`run --workers 4 /srv/a`) is never taken for a ROOT.
extension RunningDaemons {
    /// The names of `run`'s and `watch`'s options that take a value.
    static let optionsTakingValues: Set<[UInt8]> = Set(
        (RunCommand.Options.declarations + WatchCommand.Options.declarations)
            .filter { $0.valueName != nil }
            .map { Array($0.name.utf8) })

    static func serving(root: FileStatus) -> [Daemon] {
        serving(root: root, optionsTakingValues: optionsTakingValues)
    }

    static func running() -> [Daemon] {
        running(optionsTakingValues: optionsTakingValues)
    }
}
