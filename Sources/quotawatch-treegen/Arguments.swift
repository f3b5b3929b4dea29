/// The kinds of tree `quotawatch-treegen` builds.
enum TreeKind: String, CaseIterable, Sendable {
    case sandbox
    case grid
    case flat
    case million
}

/// A fully checked request: which tree, where, and how big.
struct TreeRequest: Equatable, Sendable {
    var kind: TreeKind
    var destination: String
    /// `--files`, for `sandbox`, `flat` and `million`.
    var fileCount: Int
    /// `--dirs`, for `grid`.
    var directoryCount: Int
    /// `--files-per-dir`, for `grid`.
    var filesPerDirectory: Int
    var seed: UInt64
}

enum Invocation: Equatable, Sendable {
    case help
    case generate(TreeRequest)
}

/// Bad usage: the message names the bad value. Exit status 64.
struct UsageError: Error, Equatable {
    var message: String
}

enum Arguments {
    static let defaultSeed: UInt64 = 1

    static let usage =
        "quotawatch-treegen <kind> <dest> [--files <n>] [--dirs <n>] [--files-per-dir <n>] [--seed <s>]"

    static let help = """
        OVERVIEW: Build a sample directory tree for QuotaWatch, the same for the same seed.

        USAGE: \(usage)

        ARGUMENTS:
          <kind>                  sandbox, grid, flat or million (see KINDS).
          <dest>                  The directory to fill. Created if missing; must be empty.

        KINDS:
          sandbox                 An iOS app sandbox: Documents, Library/Caches (feed, maps, video,
                                  ads, WebKit), Application Support, Preferences, tmp. Mostly files
                                  of a few KB, some of hundreds of KB, a few of MBs, a few sparse.
                                  --files (default 3000); 200000 makes the benchmark tree (~800 dirs).
          grid                    --dirs leaf directories, 100 per group, of --files-per-dir small
                                  files each (defaults 20000 and 10).
          flat, million           --files small files, 1000 per directory (default 1000000).

        OPTIONS:
          --files <n>             Number of files (sandbox, flat, million).
          --dirs <n>              Number of leaf directories (grid).
          --files-per-dir <n>     Files in each leaf directory (grid).
          --seed <s>              Seed, decimal or 0x-prefixed hex (default 1).
          -h, --help              Show help information.

        EXIT STATUS:
          0 on success, 1 if the tree could not be written, 64 on bad usage.
        """

    private enum Option: String, CaseIterable {
        case files = "--files"
        case dirs = "--dirs"
        case filesPerDir = "--files-per-dir"
        case seed = "--seed"

        func applies(to kind: TreeKind) -> Bool {
            switch self {
            case .seed: true
            case .files: kind != .grid
            case .dirs, .filesPerDir: kind == .grid
            }
        }
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var positionals: [String] = []
        var values: [(Option, String)] = []
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                return .help
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let option = Option(rawValue: String(parts[0])) else {
                throw UsageError(message: "Unknown option '\(parts[0])'")
            }
            if parts.count == 2 {
                values.append((option, String(parts[1])))
            } else if index < arguments.count {
                values.append((option, arguments[index]))
                index += 1
            } else {
                throw UsageError(message: "Missing value for option '\(option.rawValue)'")
            }
        }
        guard let kindName = positionals.first else {
            throw UsageError(message: "Missing expected argument '<kind>'")
        }
        guard let kind = TreeKind(rawValue: kindName) else {
            let names = TreeKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError(message: "Unknown tree kind '\(kindName)' (expected one of \(names))")
        }
        guard positionals.count >= 2 else {
            throw UsageError(message: "Missing expected argument '<dest>'")
        }
        guard positionals.count == 2 else {
            throw UsageError(message: "Unexpected argument '\(positionals[2])'")
        }
        guard !positionals[1].isEmpty else {
            throw UsageError(message: "Invalid destination '': expected a directory path")
        }
        var request = TreeRequest(
            kind: kind,
            destination: positionals[1],
            fileCount: kind == .sandbox ? SandboxLayout.defaultFileCount : FlatLayout.defaultFileCount,
            directoryCount: GridLayout.defaultDirectoryCount,
            filesPerDirectory: GridLayout.defaultFilesPerDirectory,
            seed: defaultSeed
        )
        for (option, text) in values {
            guard option.applies(to: kind) else {
                throw UsageError(message: "Option '\(option.rawValue)' does not apply to '\(kind.rawValue)'")
            }
            switch option {
            case .files: request.fileCount = try count(text, for: option, in: 1...10_000_000)
            case .dirs: request.directoryCount = try count(text, for: option, in: 1...1_000_000)
            case .filesPerDir: request.filesPerDirectory = try count(text, for: option, in: 0...100_000)
            case .seed: request.seed = try seed(text)
            }
        }
        let total = kind == .grid ? request.directoryCount * request.filesPerDirectory : request.fileCount
        guard total <= 10_000_000 else {
            throw UsageError(message: "\(total) files is more than the limit of 10000000")
        }
        return .generate(request)
    }

    private static func count(
        _ text: String,
        for option: Option,
        in range: ClosedRange<Int>
    ) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                message: "Invalid value '\(text)' for '\(option.rawValue)': expected a whole number "
                    + "from \(range.lowerBound) to \(range.upperBound)"
            )
        }
        return value
    }

    private static func seed(_ text: String) throws(UsageError) -> UInt64 {
        let lowered = text.lowercased()
        let value = lowered.hasPrefix("0x") ? UInt64(lowered.dropFirst(2), radix: 16) : UInt64(lowered)
        guard let value else {
            throw UsageError(
                message: "Invalid value '\(text)' for '--seed': expected a decimal or 0x-prefixed hex number "
                    + "from 0 to 18446744073709551615"
            )
        }
        return value
    }
}
