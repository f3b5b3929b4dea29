/// File times as the kernel gives them (`struct timespec`: seconds since the epoch, and
/// nanoseconds) turned into the one `Int64` of nanoseconds the policy layer compares.
package enum FileTime {
    /// The earliest time an `Int64` of nanoseconds holds: 1677-09-21T00:12:43.145224192Z.
    package static let earliest = Int64.min
    /// The latest: 2262-04-11T23:47:16.854775807Z.
    package static let latest = Int64.max

    /// Nanoseconds since the epoch, clamped to ``earliest`` ... ``latest``. ext4, XFS, btrfs
    /// and tmpfs store seconds far beyond that range (`touch -d @9223372037`); such a file
    /// reads as the end of the range it lies past: very old, or far in the future, which is
    /// what every decision made on it needs. A `tv_nsec` outside 0 ..< 10⁹ (only a broken or
    /// hostile file system reports one) is clamped into it.
    package static func nanosecondsSinceEpoch(seconds: Int64, nanoseconds: Int64) -> Int64 {
        let fraction = min(max(nanoseconds, 0), 999_999_999)
        // Exact in 128 bits, then clamped: a time just past an end stays past it, fraction and all.
        return Int64(clamping: Int128(seconds) * 1_000_000_000 + Int128(fraction))
    }
}
