import QuotaWatchCore
import QuotaWatchSystem

/// Something a crawl could not fully read; the tree counts it as du does.
public struct ScanWarning: Sendable {
    public enum Kind: Sendable {
        /// A directory that could not be opened or listed: its own inode is counted, nothing below.
        case unreadableDirectory
        /// An entry that was listed but could not be stat'ed: not counted.
        case unstatableEntry
    }

    public var kind: Kind
    /// Relative to the root, as raw bytes.
    public var path: [UInt8]
    public var error: Errno
}

/// Progress of a crawl so far, for a terminal line.
public struct CrawlProgress: Sendable {
    public var directories: Int
    public var files: Int
    public var allocatedBytes: UInt64
}

/// Builds or extends a ``TallyTree`` from a crawl.
public struct TreeScanner {
    public var crawler: Crawler

    public init(options: CrawlOptions = CrawlOptions()) { crawler = Crawler(options: options) }

    /// Crawls the directory open at `descriptor` into `tree` below `directory`, which must be
    /// in the tree already with no entries. Directories that vanish mid-crawl are dropped again.
    public func crawl(
        _ descriptor: FileDescriptor, into tree: inout TallyTree, at directory: DirectoryID,
        beforeListing: (@Sendable (FileDescriptor) -> Int32)? = nil,
        progress: ((CrawlProgress) -> Void)? = nil
    ) -> [ScanWarning] {
        var directoryByCrawlIndex: [DirectoryID?] = [directory]
        var warnings: [ScanWarning] = []
        var counts = CrawlProgress(directories: 0, files: 0, allocatedBytes: 0)
        crawler.crawl(root: descriptor, rootDevice: tree.device(of: directory), beforeListing: beforeListing) {
            result in
            let index = Int(result.crawlIndex)
            guard index < directoryByCrawlIndex.count, let target = directoryByCrawlIndex[index] else { return }
            tree.setWatch(result.watch, of: target)
            switch result.outcome {
            case .vanished:
                if target != directory { tree.removeDirectory(target) }
                return
            case .unreadable(let error):
                warnings.append(ScanWarning(kind: .unreadableDirectory, path: tree.relativePath(of: target), error: error))
            case .listed:
                break
            }
            for (name, error) in result.unstatable {
                var path = tree.relativePath(of: target)
                if !path.isEmpty { path.append(UInt8(ascii: "/")) }
                path.append(contentsOf: name)
                warnings.append(ScanWarning(kind: .unstatableEntry, path: path, error: error))
            }
            for (crawlIndex, child) in tree.addListing(result.listing, to: target) {
                let slot = Int(crawlIndex)
                if slot >= directoryByCrawlIndex.count {
                    directoryByCrawlIndex.append(contentsOf: repeatElement(nil, count: slot + 1 - directoryByCrawlIndex.count))
                }
                directoryByCrawlIndex[slot] = child
            }
            if let progress {
                if result.isComplete { counts.directories += 1 }
                counts.files += result.listing.entries.count
                for entry in result.listing.entries { counts.allocatedBytes += entry.status.allocatedBytes }
                progress(counts)
            }
        }
        return warnings
    }
}

/// A tree scanned from a path given by the user.
public struct ScannedTree {
    public var tree: TallyTree
    public var warnings: [ScanWarning]
}

public enum RootError: Error, Sendable {
    case cannotOpen(path: [UInt8], Errno)
    case notADirectory(path: [UInt8])
}

extension TreeScanner {
    /// Opens `path` (following a symlink given as the root itself) and scans it whole.
    public func scan(path: [UInt8], progress: ((CrawlProgress) -> Void)? = nil) throws(RootError) -> ScannedTree {
        let root = try openRoot(path)
        defer { root.descriptor.close() }
        var tree = TallyTree(root: root.status)
        let warnings = crawl(root.descriptor, into: &tree, at: tree.root, progress: progress)
        return ScannedTree(tree: tree, warnings: warnings)
    }

    public func openRoot(_ path: [UInt8]) throws(RootError) -> (descriptor: FileDescriptor, status: FileStatus) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.currentWorkingDirectory.openDirectory(path, followSymlinks: true)
        } catch .notDirectory {
            throw .notADirectory(path: path)
        } catch {
            throw .cannotOpen(path: path, error)
        }
        do {
            return (descriptor, try descriptor.status())
        } catch {
            descriptor.close()
            throw .cannotOpen(path: path, error)
        }
    }
}
