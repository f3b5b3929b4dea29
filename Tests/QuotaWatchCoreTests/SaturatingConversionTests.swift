import QuotaWatchCore
import Testing

@Suite("saturating conversions of values derived from extreme limits")
struct SaturatingConversionTests {
    @Test("Double to Int64 and UInt64 hold to the ends instead of trapping")
    func saturating() {
        #expect(Saturating.int64(1.8e19) == .max && Saturating.int64(-1e300) == .min)
        #expect(Saturating.int64(.nan) == 0 && Saturating.int64(599.6.rounded()) == 600)
        #expect(Saturating.uint64(0x1p64) == .max && Saturating.uint64(.infinity) == .max)
        #expect(Saturating.uint64(-3) == 0 && Saturating.uint64(.nan) == 0)
        #expect(Saturating.uint64(1.9) == 1)
    }
}

@Suite("ages of extreme modification times")
struct SaturatingAgeTests {
    @Test("an mtime at either end of Int64 and the longest age compare without trapping")
    func ages() {
        #expect(Saturating.difference(1_000, .min) == .max)
        #expect(Saturating.difference(-1_000, .max) == .min)
        #expect(Saturating.difference(5, 3) == 2)
        #expect(Duration.seconds(Int64.max).clampedNanoseconds == .max)
        #expect(Duration.seconds(-Int64.max).clampedNanoseconds == .min)
        #expect(Duration.milliseconds(1500).clampedNanoseconds == 1_500_000_000)
    }
}
