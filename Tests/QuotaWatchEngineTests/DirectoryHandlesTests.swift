import Foundation
import QuotaWatchCore
import QuotaWatchSystem
import QuotaWatchTestSupport
import Testing

@testable import QuotaWatchEngine

@Suite("DirectoryHandles")
struct DirectoryHandlesTests {
    /// More directories than the cache holds, asked for over and over in a mixed order: every
    /// answer is the right directory, and no more descriptors stay open than the capacity.
    @Test func evictsWithinCapacityAndAlwaysAnswersTheRightDirectory() throws {
        let temp = try TempTree()
        let count = 12
        for index in 0..<count { try temp.makeDirectories(TreePath("d\(index)/inner")) }
        let (root, rootStatus) = try TreeScanner().openRoot(temp.absoluteBytes(.root))
        defer { root.close() }
        var tree = TallyTree(root: rootStatus)
        _ = TreeScanner().crawl(root, into: &tree, at: tree.root)
        let directories = tree.subtree(of: tree.root).dropFirst()
        #expect(directories.count == 2 * count)
        let inodes = Set(directories.map { tree.inode(of: $0) })
        var handedOut = HandedOutDescriptors(device: rootStatus.device, inodes: inodes)
        var handles = DirectoryHandles(root: root, capacity: 5)
        var order = Array(directories)
        var random = SeededGenerator(seed: 6)
        for round in 0..<6 {
            if round % 2 == 1 { order.shuffle(using: &random) }
            for (step, directory) in order.enumerated() {
                let descriptor = try #require(try? handles.withDescriptor(for: directory, in: tree) { $0 })
                handedOut.numbers.insert(descriptor.rawValue)
                #expect(try descriptor.status().inode == tree.inode(of: directory))
                // A directory used again at once is a hit, and stays right.
                if step % 3 == 0 {
                    #expect(try handles.withDescriptor(for: directory, in: tree) { $0 }.rawValue == descriptor.rawValue)
                }
            }
            #expect(handedOut.stillOpen() <= 5, "round \(round)")
        }
        for directory in directories { handles.forget(directory) }
        #expect(handedOut.stillOpen() == 0)
        handedOut.numbers.insert(try handles.withDescriptor(for: order[0], in: tree) { $0 }.rawValue)
        #expect(handedOut.stillOpen() == 1)
        handles.forgetAll()
        #expect(handedOut.stillOpen() == 0)
    }

    /// The descriptors the cache has handed out, of which those still open on one of the
    /// tree's directories are the ones it keeps. Only these numbers are looked at: other tests
    /// run in this process meanwhile and may open the same directories themselves (a fanotify
    /// engine resolving a handle of a directory outside its root opens it for a moment), so
    /// counting every descriptor of the process on these inodes failed now and then in CI.
    private struct HandedOutDescriptors {
        let device: UInt64
        let inodes: Set<UInt64>
        var numbers: Set<Int32> = []

        func stillOpen() -> Int {
            numbers.count { number in
                guard let status = try? FileDescriptor(rawValue: number).status() else { return false }
                return status.kind == .directory && status.device == device && inodes.contains(status.inode)
            }
        }
    }
}
