import QuotaWatchCore

/// `--iec` and `--bytes`: the unit every size is shown in.
struct ByteFormatOptions: Sendable, Equatable {
    static let iec = Flag("--iec", help: "Show sizes in KiB, MiB, GiB (powers of 1024).")
    static let bytes = Flag("--bytes", help: "Show exact byte counts.")
    static let declarations = [iec.spec, bytes.spec]

    var iec: Bool
    var bytes: Bool

    init(_ arguments: ParsedArguments) {
        iec = arguments[Self.iec]
        bytes = arguments[Self.bytes]
    }

    func validate() throws(ValidationError) {
        if iec && bytes { throw ValidationError("Choose one of '--iec' and '--bytes'") }
    }

    var format: ByteFormat { iec ? .binary : bytes ? .bytes : .decimal }
}
