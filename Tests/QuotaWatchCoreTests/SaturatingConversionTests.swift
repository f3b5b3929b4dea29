import QuotaWatchCore
import Testing

@Suite("saturating conversions of values derived from extreme limits")
struct SaturatingConversionTests {
    @Test("Double to Int64 and UInt64 hold to the ends instead of trapping")
    func saturating() {
        #expect(Int64(saturating: 1.8e19) == .max && Int64(saturating: -1e300) == .min)
        #expect(Int64(saturating: .nan) == 0 && Int64(saturating: 599.6) == 600)
        #expect(UInt64(saturatingDown: 0x1p64) == .max && UInt64(saturatingDown: .infinity) == .max)
        #expect(UInt64(saturatingDown: -3) == 0 && UInt64(saturatingDown: .nan) == 0)
        #expect(UInt64(saturatingDown: 1.9) == 1)
    }
}

@Suite("ages of extreme modification times")
struct SaturatingAgeTests {
    @Test("an mtime at either end of Int64 and the longest age compare without trapping")
    func ages() {
        #expect(Int64(1_000).saturatingMinus(.min) == .max)
        #expect(Int64(-1_000).saturatingMinus(.max) == .min)
        #expect(Int64(5).saturatingMinus(3) == 2)
        #expect(Duration.seconds(Int64.max).saturatingNanoseconds == .max)
        #expect(Duration.seconds(-Int64.max).saturatingNanoseconds == .min)
        #expect(Duration.milliseconds(1500).saturatingNanoseconds == 1_500_000_000)
    }
}
