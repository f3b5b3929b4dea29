import QuotaWatchCore

/// `--depth`, `--top` and (on `status`) `--path`: which directories a report shows, chosen
/// alike by `scan` and `status`.
struct TreeSelectionOptions: Sendable, Equatable {
    /// How far below the subtree to go.
    enum Depth: Sendable, Equatable {
        case all
        case levels(Int)
    }

    static let depth = Option(
        "--depth", value: "<n|all>",
        help: "Show directories down to this depth below --path (table: 1; --json, --top: all).", .depth)
    static let top = Option(
        "--top", value: "<n>", help: "Show only the n directories with the most allocated bytes.",
        .wholeNumber(in: 1...1_000_000))
    static let path = Option(
        "--path", value: "<subdir>", help: "Show this directory (relative to the root) and the ones below it.",
        .subtree)

    var depth: Depth?
    var top: Int?
    /// Raw bytes relative to the root; empty for the root.
    var subtree: [UInt8]

    init(_ arguments: ParsedArguments, readsPath: Bool) throws(UsageError) {
        depth = try arguments.value(Self.depth)
        top = try arguments.value(Self.top)
        subtree = readsPath ? try arguments.value(Self.path) ?? [] : []
    }

    /// What to ask for. Defaults keep what earlier versions printed: the table shows depth
    /// 1, --json and --top the whole tree.
    func selection(json: Bool) -> TreeSelection {
        var selection = TreeSelection(subtree: subtree, top: top)
        switch depth {
        case .all: selection.depth = nil
        case .levels(let levels): selection.depth = levels
        case nil: selection.depth = json || top != nil ? nil : 1
        }
        return selection
    }
}

extension ValueGrammar where Value == TreeSelectionOptions.Depth {
    /// `all`, or a whole number of levels from 0 to 4096.
    static var depth: Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            if text == "all" { return .all }
            do throws(NumberParseError) {
                return .levels(try NumberText.wholeNumber(text, in: 0...4096))
            } catch {
                throw InvalidValue(
                    message: "Invalid value '\(text)' for '\(option)': \(error.reason); expected 'all' or a whole "
                        + "number from 0 to 4096")
            }
        }
    }
}

extension ValueGrammar where Value == [UInt8] {
    /// A directory relative to the root, written as `status --json` shows names.
    static var subtree: Self {
        Self { word, option throws(InvalidValue) in
            // Bytes that are not UTF-8 can only be meant as they are.
            let text = String(validating: word.bytes, as: UTF8.self) ?? EscapedName.string(word.bytes)
            switch TreeSelection.subtree(fromEscaped: text) {
            case .success(let subtree): return subtree
            case .failure(let error): throw InvalidValue(message: "Invalid value for '\(option)': \(error)")
            }
        }
    }
}
