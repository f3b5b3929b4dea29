/// A signed change to a tally, applied to a chain of ancestors. Sizes are 128-bit and exact:
/// a subtree's total may pass 2⁶⁴ (sparse files of 2⁶³ − 1 bytes on tmpfs), and moving or
/// removing it must take away exactly what it added.
struct TallyDelta {
    var allocated: Int128 = 0
    var apparent: Int128 = 0
    var files: Int64 = 0
    var dirs: Int64 = 0

    init(allocated: Int128 = 0, apparent: Int128 = 0, files: Int64 = 0, dirs: Int64 = 0) {
        self.allocated = allocated
        self.apparent = apparent
        self.files = files
        self.dirs = dirs
    }

    init(adding usage: Usage, files: Int64 = 0, dirs: Int64 = 0) {
        self.init(allocated: Int128(usage.allocated), apparent: Int128(usage.apparent), files: files, dirs: dirs)
    }

    init(from old: Usage, to new: Usage) {
        self.init(
            allocated: Int128(new.allocated) - Int128(old.allocated),
            apparent: Int128(new.apparent) - Int128(old.apparent))
    }

    mutating func subtract(_ other: TallyDelta) {
        allocated &-= other.allocated
        apparent &-= other.apparent
        files &-= other.files
        dirs &-= other.dirs
    }

    var negated: TallyDelta {
        TallyDelta(allocated: 0 &- allocated, apparent: 0 &- apparent, files: 0 &- files, dirs: 0 &- dirs)
    }

    var isZero: Bool { allocated == 0 && apparent == 0 && files == 0 && dirs == 0 }
}

/// The high words of a directory's sizes when they pass 2⁶⁴ − 1: the true total is
/// `carry × 2⁶⁴ + tally`. Kept aside (``TallyTree/overflowCarries``), since only sparse files
/// can claim that much and the record stays small.
struct OverflowCarry {
    var allocated: Int64 = 0
    var apparent: Int64 = 0

    var isZero: Bool { allocated == 0 && apparent == 0 }

    /// A low word with this carry, as du shows a total: past 2⁶⁴ − 1 it stops there.
    static func saturated(_ low: UInt64, carry: Int64) -> UInt64 {
        carry > 0 ? .max : carry < 0 ? 0 : low
    }
}

extension Tally {
    /// The low 64 bits of each size; ``TallyTree/adjustTally(of:by:)`` keeps what carries
    /// out of them, so the totals stay exact past 2⁶⁴.
    mutating func apply(_ delta: TallyDelta) {
        usage.allocated = UInt64(truncatingIfNeeded: Int128(usage.allocated) &+ delta.allocated)
        usage.apparent = UInt64(truncatingIfNeeded: Int128(usage.apparent) &+ delta.apparent)
        files &+= UInt64(bitPattern: delta.files)
        dirs &+= UInt64(bitPattern: delta.dirs)
    }
}
