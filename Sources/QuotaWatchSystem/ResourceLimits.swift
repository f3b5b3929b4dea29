import Glibc

public enum ResourceLimits {
    /// Raises the soft limit on open descriptors to the hard limit, as crawlers that keep a
    /// descriptor per pending directory need; returns the limit now in force.
    ///
    /// The corresponding C functions are `getrlimit` and `setrlimit`.
    @discardableResult
    public static func raiseOpenFileLimit() -> UInt64 {
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
    public static func openFileLimit() -> UInt64? {
        var limit = rlimit()
        guard unsafe system_getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }
}
