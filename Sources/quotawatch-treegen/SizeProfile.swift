import Glibc

/// A distribution of file sizes: weighted buckets, log-uniform inside each bucket, which is
/// roughly how cache files spread (many tiny ones, a long tail of big ones).
struct SizeProfile: Sendable {
    struct Bucket: Sendable {
        var weight: Double
        var smallest: Int
        var largest: Int
    }

    var buckets: [Bucket]

    init(_ buckets: [(weight: Double, smallest: Int, largest: Int)]) {
        precondition(!buckets.isEmpty, "a size profile needs at least one bucket")
        self.buckets = buckets.map { Bucket(weight: $0.weight, smallest: $0.smallest, largest: $0.largest) }
    }

    func sample(_ random: inout SplitMix64) -> Int {
        let total = buckets.reduce(0) { $0 + $1.weight }
        var pick = random.unit() * total
        var chosen = buckets[buckets.count - 1]
        for bucket in buckets {
            if pick < bucket.weight {
                chosen = bucket
                break
            }
            pick -= bucket.weight
        }
        return Self.logUniform(chosen.smallest, chosen.largest, &random)
    }

    private static func logUniform(_ smallest: Int, _ largest: Int, _ random: inout SplitMix64) -> Int {
        let unit = random.unit()
        if largest <= smallest {
            return smallest
        }
        if smallest <= 0 {
            // log(0) is undefined: spread the bottom of a bucket that starts at zero linearly.
            return Int(unit * Double(largest + 1))
        }
        let value = exp(log(Double(smallest)) + unit * (log(Double(largest)) - log(Double(smallest))))
        return min(largest, max(smallest, Int(value)))
    }
}

extension Int {
    static let kibibyte = 1024
    static let mebibyte = 1024 * 1024
}
