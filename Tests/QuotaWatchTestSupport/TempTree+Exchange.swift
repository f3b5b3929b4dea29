import Glibc

extension TempTree {
    private typealias RenameAt2 =
        @convention(c) (CInt, UnsafePointer<CChar>, CInt, UnsafePointer<CChar>, CUnsignedInt) -> CInt

    /// renameat2(2) as the C library has it: Swift's Glibc module leaves it out (it is a GNU
    /// extension), so it is looked up by name.
    private static func renameAt2() -> RenameAt2? {
        guard let library = dlopen(nil, RTLD_NOW), let symbol = dlsym(library, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }

    /// Why `exchange` cannot work here, or nil when it can.
    public static let exchangeUnavailableReason: String? =
        renameAt2() == nil ? "the C library has no renameat2 (glibc 2.28 or later)" : nil

    /// Swaps the entries `first` and `second` atomically, whatever they are (a directory may
    /// trade with a file), with renameat2(RENAME_EXCHANGE), as `mv --exchange` does.
    public func exchange(_ first: TreePath, _ second: TreePath) throws {
        guard let renameAt2 = Self.renameAt2() else {
            throw SystemCallError("renameat2", "\(first) <-> \(second)", errno: ENOSYS)
        }
        guard let firstParent = first.parent, let firstName = first.lastComponent,
            let secondParent = second.parent, let secondName = second.lastComponent
        else {
            throw SystemCallError("renameat2", "\(first) <-> \(second)", errno: EINVAL)
        }
        let exchangeFlag: CUnsignedInt = 1 << 1  // RENAME_EXCHANGE
        try withDirectory(firstParent) { from in
            try withDirectory(secondParent) { to in
                try withCString(firstName) { (cFirst) throws(SystemCallError) in
                    try withCString(secondName) { (cSecond) throws(SystemCallError) in
                        _ = try retryingOnInterrupt("renameat2", "\(first) <-> \(second)") {
                            renameAt2(from, cFirst, to, cSecond, exchangeFlag)
                        }
                    }
                }
            }
        }
    }
}
