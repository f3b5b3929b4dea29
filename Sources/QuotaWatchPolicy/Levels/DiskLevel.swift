import QuotaWatchCore

/// A free-space threshold: an absolute size, or a share of the filesystem's total size.
package enum SpaceThreshold: Sendable, Hashable, CustomStringConvertible {
    case bytes(UInt64)
    /// A fraction from 0 to 1 ("10%" is 0.1).
    case share(Double)

    package func bytes(ofTotal total: UInt64) -> UInt64 {
        switch self {
        case .bytes(let bytes): bytes
        case .share(let share): scaled(total, by: share)
        }
    }

    package var description: String {
        switch self {
        case .bytes(let bytes): SizeText.exact(bytes)
        case .share(let share): ShareText.format(share)
        }
    }
}
