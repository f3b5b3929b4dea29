import Foundation
import QuotaWatchCore
import QuotaWatchEngine

/// `--ios [--ios-version N] [--bundle PATH]` on `scan` and `status`: the app's storage as the
/// phone shows it, under the table (or as `"ios"` in the JSON).
enum PhoneStorageOptions {
    static let ios = Flag(
        "--ios",
        help: "Also show the total as iOS's storage screen counts it: allocated, decimal units, with the bundle.")
    static let iosVersion = Option(
        "--ios-version", value: "<major>",
        help: "16 or earlier leaves Library/Caches out, 17 counts it (default 17); implies --ios.", .iosVersion)
    static let bundle = Option(
        "--bundle", value: "<path>",
        help: "The app's .app bundle directory, crawled for its allocated size (the phone's App); implies --ios.",
        .directory)
    static let declarations = [ios.spec, iosVersion.spec, bundle.spec]

    /// What the command line asked for; nil without any of the options.
    struct Request: Sendable {
        var version: IOSVersion
        var bundle: CommandLineArgument?
    }

    static func request(_ arguments: ParsedArguments) throws(UsageError) -> Request? {
        let bundle = try arguments.value(Self.bundle)
        let version = try arguments.value(Self.iosVersion)
        guard arguments[Self.ios] || bundle != nil || version != nil else { return nil }
        return Request(version: version ?? .standard, bundle: bundle)
    }

    /// Crawls the bundle for its allocated bytes; a usage error when it is not a directory.
    static func bundleAllocated(_ request: Request, command: String) throws(UsageError) -> UInt64? {
        guard let bundle = request.bundle else { return nil }
        let scanned: ScannedTree
        do {
            scanned = try TreeScanner().scan(path: bundle.bytes)
        } catch {
            let reason =
                switch error {
                case .notADirectory: "it is not a directory"
                case .cannotOpen(_, let errno): "cannot open it: \(errno)"
                }
            throw UsageError(
                message:
                    "Invalid value '\(bundle.text)' for '--bundle': \(reason); give the app's .app bundle directory",
                command: command)
        }
        for warning in scanned.warnings {
            Console.error(RootOptions.describe(warning, root: bundle))
        }
        return scanned.tree.tally(of: scanned.tree.root).allocated
    }

    /// Everything the request asks for, once the bundle is measured (a usage error when it
    /// is not a directory): measure the bundle before the tree, so a bad one fails at once.
    struct Measured {
        var version: IOSVersion
        var appAllocated: UInt64?

        /// From a scanned tree: its root and its `Library/Caches`, if any.
        func storage(_ tree: TallyTree) -> PhoneStorage {
            tree.phoneStorage(version: version, appAllocated: appAllocated)
        }
    }

    struct AskFailure: Error {
        var message: String
    }

    /// Asks the daemon for the root and `Library/Caches` (the tree down to depth 2, a few
    /// rows in a sandbox), after the main request, so a `--sync` before it holds here too.
    static func ask(_ measured: Measured, socket: [UInt8], timeout: Int) -> Result<PhoneStorage, AskFailure> {
        let request = ControlRequest(.status(.tree(TreeSelection(depth: 2))), sync: false)
        do {
            let reply = try ControlClient.request(socketPath: socket, request, timeout: .seconds(timeout))
            let report = try StatusWire.report(from: reply)
            guard
                let storage = PhoneStorage(
                    version: measured.version, directories: report.directories, appAllocated: measured.appAllocated)
            else { return .failure(AskFailure(message: "the daemon's answer has no row for the root")) }
            return .success(storage)
        } catch let error as ControlClientError {
            return .failure(AskFailure(message: "\(error)"))
        } catch {
            return .failure(AskFailure(message: "the daemon's answer is not a status report: \(error)"))
        }
    }

    static func measure(_ request: Request?, command: String) throws(UsageError) -> Measured? {
        guard let request else { return nil }
        return Measured(version: request.version, appAllocated: try bundleAllocated(request, command: command))
    }

    /// The report's JSON object with an `"ios"` key added, keys still sorted.
    static func json(_ report: some Encodable, _ storage: PhoneStorage) -> String {
        JSONOutput.encode(WithPhoneStorage(report: report, ios: storage))
    }

    /// The lines under the table.
    static func text(_ storage: PhoneStorage, format: ByteFormat) -> String {
        storage.lines(rawFormat: format).joined(separator: "\n") + "\n"
    }
}

extension ValueGrammar where Value == IOSVersion {
    /// A major version as a whole number.
    static var iosVersion: Self {
        Self { word, option throws(InvalidValue) in
            let text = try word.utf8Text(for: option)
            guard let version = IOSVersion.parse(text) else {
                throw InvalidValue(
                    message:
                        "Invalid value '\(text)' for '\(option)': expected a major version as a whole number, "
                        + "such as 16 (Library/Caches left out, as iOS 16 and earlier count) or 17 (counted)")
            }
            return version
        }
    }
}

/// Encodes a report's own keys and `"ios"` into one object.
private struct WithPhoneStorage<Report: Encodable>: Encodable {
    var report: Report
    var ios: PhoneStorage

    enum CodingKeys: String, CodingKey { case ios }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ios, forKey: .ios)
    }
}
