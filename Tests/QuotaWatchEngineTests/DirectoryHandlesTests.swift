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
        #expect(try openDescriptors(of: inodes, on: rootStatus.device) == 0)
        var handles = DirectoryHandles(root: root, capacity: 5)
        var order = Array(directories)
        var random = SeededGenerator(seed: 6)
        for round in 0..<6 {
            if round % 2 == 1 { order.shuffle(using: &random) }
            for (step, directory) in order.enumerated() {
                let descriptor = try #require(try? handles.withDescriptor(for: directory, in: tree) { $0 })
                #expect(try descriptor.status().inode == tree.inode(of: directory))
                // A directory used again at once is a hit, and stays right.
                if step % 3 == 0 {
                    #expect(try handles.withDescriptor(for: directory, in: tree) { $0 }.rawValue == descriptor.rawValue)
                }
            }
            #expect(try openDescriptors(of: inodes, on: rootStatus.device) <= 5, "round \(round)")
        }
        for directory in directories { handles.forget(directory) }
        #expect(try openDescriptors(of: inodes, on: rootStatus.device) == 0)
        _ = try handles.withDescriptor(for: order[0], in: tree) { $0 }
        #expect(try openDescriptors(of: inodes, on: rootStatus.device) == 1)
        handles.forgetAll()
        #expect(try openDescriptors(of: inodes, on: rootStatus.device) == 0)
    }

    /// Descriptors of this process open on one of `inodes` of `device`. Other tests run
    /// meanwhile and open descriptors of their own, so only ours are counted: the device too,
    /// since a directory of another file system (such as /proc) can have the same inode number.
    private func openDescriptors(of inodes: Set<UInt64>, on device: UInt64) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { entry in
            guard let number = Int32(entry), let status = try? FileDescriptor(rawValue: number).status() else {
                return false
            }
            return status.kind == .directory && status.device == device && inodes.contains(status.inode)
        }
    }
}
