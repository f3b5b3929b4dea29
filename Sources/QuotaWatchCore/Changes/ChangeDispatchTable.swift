/// Which root's engine each key of a shared backend belongs to, when one kernel object (one
/// inotify instance, one fanotify group) serves every root of the process.
///
/// Roots never nest (``RootSet`` refuses it), so a directory belongs to one root, and each key
/// to one owner. A key can still have several: the parent of roots side by side (`/home` for
/// `/home/a` and `/home/b`, watched by each for its root's own removal), or a directory
/// bind-mounted into two roots, where the kernel hands back the key it already gave. Those
/// keep a short list beside the one owner every key has, so a directory costs one dictionary
/// entry here, not an array.
///
/// Splitting a batch costs one lookup per change, whatever the number of owners: only a lost
/// batch (an overflow) goes to every owner, each of which then crawls its root again.
package struct ChangeDispatchTable: Sendable {
    package typealias Owner = Int

    private var ownerByKey: [Int32: Owner] = [:]
    /// Owners past the first, for the few keys shared between roots.
    private var moreOwnersByKey: [Int32: [Owner]] = [:]
    /// Each owner's keys, so that an owner that stops releases exactly its own.
    private var keysByOwner: [Owner: Set<Int32>] = [:]
    /// Owners that take part: every one of them hears an overflow.
    package private(set) var owners: Set<Owner> = []

    package init() {}

    /// Keys with at least one owner.
    package var count: Int { ownerByKey.count }

    package mutating func addOwner(_ owner: Owner) { owners.insert(owner) }

    /// Records that `owner` holds `key`; holding it again changes nothing.
    package mutating func add(_ key: Int32, owner: Owner) {
        guard keysByOwner[owner, default: []].insert(key).inserted else { return }
        if ownerByKey[key] == nil {
            ownerByKey[key] = owner
        } else {
            moreOwnersByKey[key, default: []].append(owner)
        }
    }

    /// The owners of `key`, the first first.
    package func owners(of key: Int32) -> [Owner] {
        guard let first = ownerByKey[key] else { return [] }
        return [first] + (moreOwnersByKey[key] ?? [])
    }

    /// `owner` lets go of `key`. True when no owner is left: the kernel's watch can go.
    @discardableResult
    package mutating func remove(_ key: Int32, owner: Owner) -> Bool {
        guard keysByOwner[owner]?.remove(key) != nil else { return false }
        return dropOwner(owner, of: key)
    }

    /// `owner` stops: every key it held, each returned when no other owner holds it (the
    /// kernel's watches to drop).
    package mutating func removeOwner(_ owner: Owner) -> [Int32] {
        owners.remove(owner)
        let keys = keysByOwner.removeValue(forKey: owner) ?? []
        return keys.filter { dropOwner(owner, of: $0) }
    }

    /// The kernel dropped `key` (its directory was removed): no owner holds it any more.
    package mutating func forget(_ key: Int32) {
        for owner in owners(of: key) { keysByOwner[owner]?.remove(key) }
        ownerByKey[key] = nil
        moreOwnersByKey[key] = nil
    }

    /// One batch split by owner, each owner's changes in the order they came: a change goes to
    /// the owners of its key (to none when its key has no owner: a directory that left the
    /// tree), an overflow to every owner. A key reported ``ChangeKind/forgotten`` is forgotten
    /// once its owners have it.
    package mutating func split(_ changes: [FileSystemChange]) -> [(owner: Owner, changes: [FileSystemChange])] {
        var batches: [(owner: Owner, changes: [FileSystemChange])] = []
        var indexByOwner: [Owner: Int] = [:]
        func append(_ change: FileSystemChange, to owner: Owner) {
            if let index = indexByOwner[owner] {
                batches[index].changes.append(change)
            } else {
                indexByOwner[owner] = batches.count
                batches.append((owner, [change]))
            }
        }
        for change in changes {
            if change.kind.contains(.overflowed) {
                for owner in owners.sorted() { append(change, to: owner) }
                continue
            }
            guard let first = ownerByKey[change.watch] else { continue }
            append(change, to: first)
            if let more = moreOwnersByKey[change.watch] {
                for owner in more { append(change, to: owner) }
            }
            if change.kind.contains(.forgotten) { forget(change.watch) }
        }
        return batches
    }

    private mutating func dropOwner(_ owner: Owner, of key: Int32) -> Bool {
        if ownerByKey[key] == owner {
            if var more = moreOwnersByKey[key], !more.isEmpty {
                ownerByKey[key] = more.removeFirst()
                moreOwnersByKey[key] = more.isEmpty ? nil : more
                return false
            }
            ownerByKey[key] = nil
            return true
        }
        guard var more = moreOwnersByKey[key], let index = more.firstIndex(of: owner) else { return false }
        more.remove(at: index)
        moreOwnersByKey[key] = more.isEmpty ? nil : more
        return false
    }
}
