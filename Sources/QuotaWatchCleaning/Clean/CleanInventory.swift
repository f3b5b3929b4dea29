import QuotaWatchCore
import QuotaWatchEngine
import QuotaWatchPolicy
import QuotaWatchSystem

/// The files of the storage page, found by a crawl of the CLI's own (no daemon serves ROOT).
package enum CleanInventory {
    /// Crawls `root` (kept open by the caller) and returns every file that has a category,
    /// with the status the crawl read, and what could not be read.
    package static func crawl(
        _ root: FileDescriptor, options: CrawlOptions = CrawlOptions()
    ) -> (items: [CleanItem], warnings: [ScanWarning]) {
        guard let rootStatus = try? root.status() else { return ([], []) }
        var items: [CleanItem] = []
        var warnings: [ScanWarning] = []
        // The path of each directory the crawl numbered, relative to ROOT.
        var pathByCrawlIndex: [[UInt8]?] = [[]]
        let rootIdentity = DirectoryIdentity(device: rootStatus.device, inode: rootStatus.inode)
        Crawler(options: options).crawl(root: root, rootDevice: rootStatus.device, ancestors: [rootIdentity]) {
            result in
            let index = Int(result.crawlIndex)
            guard index < pathByCrawlIndex.count, let base = pathByCrawlIndex[index] else { return }
            if case .unreadable(let error) = result.outcome {
                warnings.append(ScanWarning(kind: .unreadableDirectory, path: base, error: error))
            }
            for (name, error) in result.unstatable {
                warnings.append(ScanWarning(kind: .unstatableEntry, path: join(base, name), error: error))
            }
            let classifier = CleanFileClassifier(directory: base)
            for entry in result.listing.entries {
                let name = result.listing.name(of: entry)
                if entry.status.kind == .directory {
                    let slot = Int(entry.crawlIndex)
                    guard entry.crawlIndex != .max else { continue }
                    if slot >= pathByCrawlIndex.count {
                        pathByCrawlIndex.append(
                            contentsOf: repeatElement(nil, count: slot + 1 - pathByCrawlIndex.count))
                    }
                    pathByCrawlIndex[slot] = join(base, name)
                } else if let classification = classifier.classify(name: name) {
                    items.append(
                        CleanItem(path: join(base, name), classification: classification, status: entry.status))
                }
            }
        }
        return (items, warnings)
    }

    static func join(_ base: [UInt8], _ name: some Collection<UInt8>) -> [UInt8] {
        base.isEmpty ? Array(name) : base + [UInt8(ascii: "/")] + name
    }
}

extension LiveTree {
    /// The storage page's files from the live tree, on the engine thread: only the
    /// directories a category can lie in are walked. With `statting`, each file with a
    /// category is stat'ed once relative to its directory's descriptor, for its age: what a
    /// deletion plans with. Without, the items carry the tree's own numbers and no mtime
    /// (`Int64.min`), for ``CleanListing`` to read on the connection's thread: a page of
    /// 180 000 files costs the engine the walk, not 180 000 stats. Nothing is listed again.
    mutating func cleanItems(statting: Bool = true) -> [CleanItem] {
        var items: [CleanItem] = []
        for top in CleanClassifier.topDirectories {
            guard let start = tree.directory(atComponents: PathComponents.split(Array(top.utf8))) else { continue }
            // Preferences: only its own temporary plists, never below.
            let directories = top == "Library/Preferences" ? [start] : tree.subtree(of: start)
            for directory in directories {
                let base = tree.relativePath(of: directory)
                let classifier = CleanFileClassifier(directory: base)
                if classifier.classifiesNothing { continue }
                for file in tree.files(in: directory) {
                    let name = Array(tree.name(of: file))
                    guard let classification = classifier.classify(name: name) else { continue }
                    let path = CleanInventory.join(base, name)
                    if statting {
                        guard case .found(let status) = fileSystem.status(of: name, in: directory, tree: tree),
                            status.kind != .directory
                        else { continue }
                        items.append(CleanItem(path: path, classification: classification, status: status))
                        continue
                    }
                    let device = tree.device(of: directory)
                    let inode = tree.inode(of: file)
                    let usage = tree.usage(of: file)
                    items.append(
                        CleanItem(
                            path: path, classification: classification, device: device, inode: inode,
                            linkCount: tree.singleNamedFile(device: device, inode: inode) == file ? 1 : 2,
                            allocatedBytes: usage.allocated, apparentBytes: usage.apparent,
                            modifiedNanoseconds: .min))
                }
            }
        }
        return items
    }
}
