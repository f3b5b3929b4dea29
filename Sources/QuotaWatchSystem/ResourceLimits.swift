import Glibc

package enum ResourceLimits {
    /// Raises the soft limit on open descriptors to the hard limit, as crawlers that keep a
    /// descriptor per pending directory need; returns the limit now in force.
    ///
    /// The corresponding C functions are `getrlimit` and `setrlimit`.
    @discardableResult
    package static func raiseOpenFileLimit() -> UInt64 {
        var limit = rlimit()
        guard unsafe system_getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if unsafe system_setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                return UInt64(raised.rlim_max)
            }
        }
        return UInt64(limit.rlim_cur)
    }

    /// The limit on open descriptors now in force (the soft limit), for messages that say
    /// which limit ran out; nil when it cannot be read.
    ///
    /// The corresponding C function is `getrlimit`.
    package static func openFileLimit() -> UInt64? {
        var limit = rlimit()
        guard unsafe system_getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Whether the `count` highest numbers under the soft limit are all free, which means at
    /// least `count` descriptors are left whatever is open below them; false when the limit
    /// cannot be read. A few calls, where ``openDescriptorCount()`` makes one per number.
    ///
    /// The corresponding C functions are `getrlimit` and `fcntl` with `F_GETFD`.
    package static func highestDescriptorsFree(_ count: Int) -> Bool {
        guard let limit = openFileLimit(), limit >= UInt64(count), limit <= UInt64(CInt.max) else { return false }
        let top = CInt(limit)
        return (top - CInt(count)..<top).allSatisfy { system_fcntl($0, F_GETFD, 0) == -1 }
    }

    /// How many descriptors are open, counted below the soft limit; nil when the limit is too
    /// high for a shortage to matter (over 65536) or cannot be read. Asks each number in turn,
    /// which needs no descriptor of its own (listing /proc/self/fd would).
    ///
    /// The corresponding C functions are `getrlimit` and `fcntl` with `F_GETFD`.
    package static func openDescriptorCount() -> (open: Int, limit: UInt64)? {
        guard let limit = openFileLimit(), limit <= 65536 else { return nil }
        var open = 0
        for number in 0..<CInt(limit) where system_fcntl(number, F_GETFD, 0) != -1 { open += 1 }
        return (open, limit)
    }
}
