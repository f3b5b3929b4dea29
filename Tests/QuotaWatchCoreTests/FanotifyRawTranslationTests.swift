import QuotaWatchCore
import Testing

/// The reader's path (``FanotifyTranslator/translate(raw:table:)``: events elsewhere judged in
/// place, the rest decoded) against decoding every event first, on random batches of every
/// kind of event, in and out of the table: the same changes, files handed on, removals, and
/// the same files taken for born outside afterwards.
@Suite("fanotify: events judged in place translate as decoded ones")
struct FanotifyRawTranslationTests {
    typealias F = FanotifyFixture

    static let masks: [UInt64] = [
        0x0100, 0x0002, 0x0008, 0x000a, 0x0102, 0x010a, 0x0004, 0x0200, 0x0400, 0x0800, 0x0404, 0x4000_0100,
        0x4000_0200, 0x4000_0004, 0x1000_0000, 0x5000_0000, 0x0000_4000, 0x0020, 0x0300,
    ]

    static func randomEvent(_ random: inout SeededGenerator) -> [UInt8] {
        let mask = masks.randomElement(using: &random)!
        if mask == 0x4000 { return F.event(mask: mask) }
        let directory = F.handle(UInt8.random(in: 1...6, using: &random))
        let file = F.handle(UInt8.random(in: 100...140, using: &random))
        let name = [UInt8(ascii: "a") + UInt8.random(in: 0...3, using: &random)]
        var records: [[UInt8]] = []
        if mask & 0x1000_0000 != 0 {
            records.append(F.info(type: 10, handle: directory, name: name))
            records.append(F.info(type: 12, handle: F.handle(UInt8.random(in: 1...6, using: &random)), name: name))
        } else if mask & 0x0c00 != 0 || (mask == 0x0004 && Bool.random(using: &random)) {
            // Self events and link-count changes: the object alone.
        } else {
            records.append(F.info(type: Bool.random(using: &random) ? 2 : 3, handle: directory, name: name))
        }
        if mask & 0x4000_0000 == 0 || Bool.random(using: &random) { records.append(F.info(type: 1, handle: file)) }
        return F.event(mask: mask, records.shuffled(using: &random))
    }

    @Test("the same output, batch after batch", arguments: [1, 2, 3, 4] as [UInt64])
    func sameAsDecoded(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        var table = DirectoryHandleTable()
        for inode in [1, 2, 3] as [UInt8] { table.insert(F.handle(inode), watch: Int32(inode)) }
        var fast = FanotifyTranslator()
        var slow = FanotifyTranslator()
        for batch in 0..<400 {
            let buffer = (0..<Int.random(in: 1...30, using: &random)).flatMap { _ in Self.randomEvent(&random) }
            let expected = slow.translate(FanotifyEvent.decode(buffer)) { table.watch(of: $0) }
            let output = buffer.withUnsafeBytes { fast.translate(raw: $0, table: table) }
            #expect(output == expected, "seed \(seed), batch \(batch)")
            #expect(output.changedFiles == expected.changedFiles, "seed \(seed), batch \(batch)")
            let born = (100...140).map { F.handle(UInt8($0)) }
            #expect(
                born.map(fast.outsideBorn.isBornOutside) == born.map(slow.outsideBorn.isBornOutside),
                "seed \(seed), batch \(batch)")
            #expect(fast.outsideBorn.recordsBirths == slow.outsideBorn.recordsBirths, "seed \(seed), batch \(batch)")
        }
    }
}
