import Foundation
import QuotaWatchTestSupport
import Testing

/// Runs `quotawatch scan ROOT --json` on `root` of `tree` and records an issue
/// for every way the report differs from du and find run on the same tree
/// (as the same user).
///
/// - Returns: the process result and the decoded report, for further checks.
@discardableResult
func expectScanMatchesOracle(
    _ tree: TempTree,
    root: TreePath = .root,
    as user: UserIdentity? = nil,
    using runner: CLIRunner? = nil,
    options: [String] = [],
    expectedExitStatus: CInt = 0,
    context: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (result: ProcessResult, report: ScanReport?) {
    let expectation = try ScanExpectation.measure(tree, root: root, as: user)
    let cli = try runner ?? CLIRunner.locate()
    let (result, report) = try cli.scanJSON(root: tree.absolutePath(root), options: options, as: user)
    let prefix = context.isEmpty ? "" : "\(context): "

    #expect(
        result.exitStatus == expectedExitStatus,
        "\(prefix)expected exit status \(expectedExitStatus)\n\(result)",
        sourceLocation: sourceLocation
    )
    if expectedExitStatus == 0 {
        let quiet = result.standardError.isEmpty
        #expect(quiet, "\(prefix)unexpected stderr\n\(result)", sourceLocation: sourceLocation)
    }
    let isUTF8 = String(validating: result.standardOutput, as: UTF8.self) != nil
    #expect(isUTF8, "\(prefix)stdout is not valid UTF-8", sourceLocation: sourceLocation)
    guard let report else {
        Issue.record("\(prefix)stdout is not the expected JSON object\n\(result)", sourceLocation: sourceLocation)
        return (result, nil)
    }
    let problems = expectation.mismatches(in: report)
    let matches = problems.isEmpty
    #expect(
        matches,
        "\(prefix)scan differs from du/find:\n\(problems.joined(separator: "\n"))",
        sourceLocation: sourceLocation
    )
    return (result, report)
}

/// True when `haystack` contains `needle` as a run of bytes.
func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    return (0...(haystack.count - needle.count)).contains { start in
        haystack[start..<start + needle.count].elementsEqual(needle)
    }
}
