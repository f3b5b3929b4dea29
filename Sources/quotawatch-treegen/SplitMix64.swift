/// A small, fast, seedable pseudo-random generator (SplitMix64).
///
/// It deliberately does not conform to `RandomNumberGenerator`: the standard library's
/// `random(in:using:)` may change its sampling between toolchains, and a tree must stay
/// the same for the same seed. All sampling goes through the methods below.
struct SplitMix64: Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The golden-ratio increment that walks the state through all 2^64 values.
    private static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    /// The SplitMix64 output function. It is a bijection on `UInt64`, so mixing distinct
    /// inputs always gives distinct outputs; names derived from it never collide.
    static func mix(_ value: UInt64) -> UInt64 {
        var bits = value
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits >> 31)
    }

    /// A seed for an independent stream, derived from a parent seed and a stream number.
    static func derive(_ seed: UInt64, stream: UInt64) -> UInt64 {
        mix(seed ^ mix(stream &+ increment))
    }

    /// A value in `0..<bound` (multiply-shift; its bias is far below anything a tree shows).
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A value in `range`, both ends included.
    mutating func integer(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// A value in `[0, 1)` with 53 random bits.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }
}
