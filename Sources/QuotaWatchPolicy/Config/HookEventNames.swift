import QuotaWatchCore

/// Event kinds as hooks list them.
package enum HookEventNames {
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package var name: String
        package var description: String {
            (name.isEmpty ? "no event is named" : "unknown event '\(name)'") + "; expected 'all' or any of "
                + PolicyEvent.kinds.joined(separator: ", ")
        }
    }

    /// The set of kinds; empty (every kind) for `all`.
    package static func parse(_ names: [String]) throws(ParseError) -> Set<String> {
        if names.isEmpty { throw ParseError(name: "") }
        var kinds: Set<String> = []
        for name in names {
            let trimmed = name.trimming(" \t")
            if trimmed == "all" { return [] }
            guard PolicyEvent.kinds.contains(trimmed) else { throw ParseError(name: trimmed) }
            kinds.insert(trimmed)
        }
        return kinds
    }
}
