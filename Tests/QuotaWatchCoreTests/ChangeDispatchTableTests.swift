import QuotaWatchCore
import Testing

@Suite("one backend's changes dispatched to the roots that watched them")
struct ChangeDispatchTableTests {
    private func change(_ key: Int32, _ kind: ChangeKind = .created, _ name: String = "f") -> FileSystemChange {
        FileSystemChange(watch: key, kind: kind, name: Array(name.utf8))
    }

    private func table(owners: Int) -> ChangeDispatchTable {
        var table = ChangeDispatchTable()
        for owner in 0..<owners { table.addOwner(owner) }
        return table
    }

    @Test("each change goes to the root that added its key, in the order it came; an unknown key to none")
    func changesGoToTheirOwnerInOrder() {
        var table = table(owners: 3)
        table.add(10, owner: 0)
        table.add(11, owner: 1)
        table.add(12, owner: 0)
        let batch = [change(10, .created, "a"), change(11), change(12), change(99), change(10, .removed, "a")]
        let split = table.split(batch)
        #expect(split.map(\.owner) == [0, 1])
        #expect(split[0].changes == [change(10, .created, "a"), change(12), change(10, .removed, "a")])
        #expect(split[1].changes == [change(11)])
    }

    @Test("an overflow goes to every root, those with no key too, in its place among the changes")
    func overflowGoesToEveryRoot() {
        var table = table(owners: 3)
        table.add(10, owner: 0)
        let split = table.split([change(10), .overflow, change(10, .removed)])
        #expect(split.map(\.owner) == [0, 1, 2])
        #expect(split[0].changes == [change(10), .overflow, change(10, .removed)])
        #expect(split[1].changes == [.overflow])
        #expect(split[2].changes == [.overflow])
    }

    @Test("a key two roots hold (their common parent) reaches both, and stays until both let go")
    func sharedKeyReachesEveryHolder() {
        var table = table(owners: 2)
        table.add(5, owner: 0)
        table.add(5, owner: 1)
        table.add(5, owner: 1)
        #expect(table.owners(of: 5) == [0, 1])
        #expect(table.split([change(5, .removed, "a")]).map(\.owner) == [0, 1])
        #expect(table.remove(5, owner: 0) == false)
        #expect(table.owners(of: 5) == [1])
        #expect(table.remove(5, owner: 0) == false, "letting go twice releases nothing")
        #expect(table.remove(5, owner: 1) == true, "the last holder releases the kernel's watch")
        #expect(table.owners(of: 5).isEmpty)
        #expect(table.split([change(5)]).isEmpty)
    }

    @Test("a root that stops releases its own keys only, and those no other root holds")
    func stoppingRootReleasesItsOwnKeys() {
        var table = table(owners: 2)
        table.add(1, owner: 0)
        table.add(2, owner: 0)
        table.add(3, owner: 1)
        table.add(4, owner: 0)
        table.add(4, owner: 1)
        #expect(table.removeOwner(0).sorted() == [1, 2])
        #expect(table.owners(of: 4) == [1])
        #expect(table.count == 2)
        let split = table.split([change(1), .overflow, change(3), change(4)])
        #expect(split.map(\.owner) == [1])
        #expect(split[0].changes == [.overflow, change(3), change(4)])
    }

    @Test("a key the kernel forgot reaches its holders once, then no one")
    func forgottenKeyIsDroppedAfterDelivery() {
        var table = table(owners: 2)
        table.add(7, owner: 0)
        table.add(7, owner: 1)
        let split = table.split([change(7, .forgotten, ""), change(7)])
        #expect(split.map(\.owner) == [0, 1])
        #expect(split[0].changes == [change(7, .forgotten, "")])
        #expect(table.count == 0)
        #expect(table.removeOwner(0).isEmpty, "a forgotten key is released already")
    }

    @Test("dispatch matches a model: each change to exactly the holders of its key", arguments: [1, 7, 42])
    func dispatchMatchesModel(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        var table = table(owners: 20)
        var model: [Int32: Set<Int>] = [:]
        for _ in 0..<400 {
            let key = Int32.random(in: 0..<60, using: &random)
            let owner = Int.random(in: 0..<20, using: &random)
            if Bool.random(using: &random) {
                table.add(key, owner: owner)
                model[key, default: []].insert(owner)
            } else {
                let released = table.remove(key, owner: owner)
                let held = model[key]?.remove(owner) != nil
                #expect(released == (held && model[key]!.isEmpty), "seed \(seed)")
                if model[key]?.isEmpty == true { model[key] = nil }
            }
        }
        let batch = (0..<300).map { _ in change(Int32.random(in: 0..<60, using: &random)) }
        var expected: [Int: [FileSystemChange]] = [:]
        for change in batch {
            for owner in model[change.watch] ?? [] { expected[owner, default: []].append(change) }
        }
        let split = table.split(batch)
        #expect(Dictionary(uniqueKeysWithValues: split.map { ($0.owner, $0.changes) }) == expected, "seed \(seed)")
    }
}
