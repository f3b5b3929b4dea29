import Foundation

/// `quotawatch-treegen`: parse, plan, write, report.
enum TreegenCommand {
    static let exitSuccess: Int32 = 0
    static let exitFailure: Int32 = 1
    static let exitUsage: Int32 = 64

    static func run(arguments: [String]) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Arguments.parse(arguments)
        } catch {
            Console.error("Error: \(error.message)")
            Console.error("Usage: \(Arguments.usage)")
            Console.error("  See 'quotawatch-treegen --help' for more information.")
            return exitUsage
        }
        guard case .generate(let request) = invocation else {
            Console.output(Arguments.help)
            return exitSuccess
        }
        let clock = ContinuousClock()
        let start = clock.now
        let totals: GenerationTotals
        do {
            totals = try Materializer(destination: request.destination).materialize(plan(for: request))
        } catch {
            Console.error("Error: \(error.message)")
            return exitFailure
        }
        let elapsed = start.duration(to: clock.now)
        Console.error(summary(request, totals, elapsed))
        return exitSuccess
    }

    static func plan(for request: TreeRequest) -> TreePlan {
        switch request.kind {
        case .sandbox:
            SandboxLayout.plan(fileCount: request.fileCount, seed: request.seed)
        case .grid:
            GridLayout.plan(
                directoryCount: request.directoryCount,
                filesPerDirectory: request.filesPerDirectory,
                seed: request.seed
            )
        case .flat, .million:
            FlatLayout.plan(fileCount: request.fileCount, seed: request.seed)
        }
    }

    static func summary(_ request: TreeRequest, _ totals: GenerationTotals, _ elapsed: Duration) -> String {
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return "quotawatch-treegen: \(request.kind.rawValue) at \(request.destination): "
            + "\(totals.files) files, \(totals.directories) dirs, "
            + "\(totals.apparentBytes) bytes apparent (\(binaryUnits(totals.apparentBytes))), "
            + "\(totals.writtenBytes) written, seed \(request.seed), "
            + "\(milliseconds / 1000).\(Digits.padded(Int(milliseconds % 1000), width: 3)) s"
    }

    /// `1.5 GiB`: one decimal, powers of 1024, no locale.
    static func binaryUnits(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return unit == 0 ? "\(bytes) B" : "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}

/// Standard output and error. The C globals `stdout` and `stderr` are not safe under strict
/// concurrency, so this goes through `FileHandle`.
enum Console {
    static func output(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
