import QuotaWatchCore
import Testing

/// The one lazy-deletion heap, which the leftover schedule and the engine's policy deadlines
/// share, against a sorted list.
@Suite("deadline heap")
struct DeadlineHeapTests {
    /// A small deterministic generator (SplitMix64), so a failure replays.
    private struct Numbers {
        var state: UInt64
        mutating func next(below bound: UInt64) -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return (mixed ^ (mixed >> 31)) % bound
        }
    }

    @Test(
        "pushes and pops in any interleaving come out soonest first, ties and all", arguments: [1, 7, 42] as [UInt64])
    func popsInDeadlineOrder(seed: UInt64) {
        var numbers = Numbers(state: seed)
        var heap = DeadlineHeap<UInt64, Int>()
        var reference: [UInt64] = []
        for key in 0..<2000 {
            if numbers.next(below: 3) == 0, let top = heap.popFirst() {
                #expect(top.deadline == reference.min())
                reference.remove(at: reference.firstIndex(of: top.deadline)!)
            } else {
                let deadline = numbers.next(below: 500)
                heap.push(deadline, key)
                reference.append(deadline)
            }
            #expect(heap.count == reference.count)
            #expect(heap.first?.deadline == reference.min())
        }
        var drained: [UInt64] = []
        while let top = heap.popFirst() { drained.append(top.deadline) }
        #expect(drained == reference.sorted())
        #expect(heap.isEmpty)
    }

    @Test("filter drops the superseded entries and keeps the rest in heap order")
    func filterKeepsOrder() {
        var heap = DeadlineHeap<Int, String>()
        for deadline in [9, 3, 7, 1, 8, 2, 6, 4, 5] { heap.push(deadline, deadline % 2 == 0 ? "even" : "odd") }
        heap.filter { $0.key == "odd" }
        var drained: [Int] = []
        while let top = heap.popFirst() { drained.append(top.deadline) }
        #expect(drained == [1, 3, 5, 7, 9])
        heap.push(2, "x")
        heap.removeAll()
        #expect(heap.first == nil)
    }
}
