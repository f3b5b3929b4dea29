import QuotaWatchCore
import QuotaWatchSystem

/// Something a crawl could not fully read; the tree counts it as du does.
package struct ScanWarning: Sendable {
    package enum Kind: Sendable {
        /// A directory that could not be opened or listed: its own inode is counted, nothing below.
        case unreadableDirectory
        /// An entry that was listed but could not be stat'ed: not counted.
        case unstatableEntry
    }

    package var kind: Kind
    /// Relative to the root, as raw bytes.
    package var path: [UInt8]
    package var error: Errno

    package init(kind: Kind, path: [UInt8], error: Errno) {
        self.kind = kind
        self.path = path
        self.error = error
    }
}

/// Progress of a crawl so far, for a terminal line.
package struct CrawlProgress: Sendable {
    package var directories: Int
    package var files: Int
    package var allocatedBytes: UInt64
}

/// Builds or extends a ``TallyTree`` from a crawl.
package struct TreeScanner {
    package var crawler: Crawler

    package init(options: CrawlOptions = CrawlOptions()) { crawler = Crawler(options: options) }

    /// Crawls the directory open at `descriptor` into `tree` below `directory`, which must be
    /// in the tree already with no entries. Directories that vanish mid-crawl are dropped again.
    /// `beforeListing` returns the watch for each directory (stored in the tree), negative
    /// when there is none; ``WatchOutcome/limitReached`` marks it unwatched in the report.
    package func crawl(
        _ descriptor: FileDescriptor, into tree: inout TallyTree, at directory: DirectoryID,
        beforeListing: (@Sendable (FileDescriptor) -> Int32)? = nil,
        progress: ((CrawlProgress) -> Void)? = nil,
        notingFilesChangedSince recentSince: Int64? = nil
    ) -> (warnings: [ScanWarning], report: CrawlReport) {
        var directoryByCrawlIndex: [DirectoryID?] = [directory]
        var warnings: [ScanWarning] = []
        var report = CrawlReport()
        var counts = CrawlProgress(directories: 0, files: 0, allocatedBytes: 0)
        var ancestors: [DirectoryIdentity] = []
        var above: DirectoryID? = directory
        while let current = above {
            ancestors.append(DirectoryIdentity(device: tree.device(of: current), inode: tree.inode(of: current)))
            above = tree.parent(of: current)
        }
        crawler.crawl(
            root: descriptor, rootDevice: tree.device(of: directory), ancestors: ancestors,
            beforeListing: beforeListing
        ) { result in
            let index = Int(result.crawlIndex)
            guard index < directoryByCrawlIndex.count, let target = directoryByCrawlIndex[index] else { return }
            if let opened = result.openedStatus, opened.kind == .directory {
                // The record takes the inode that is watched and listed (renamed over between
                // the parent's listing and the open, the engine can tell it is a directory it
                // may already know under another name), and its size as of its watch: entries
                // made between the parent's listing and the watch raised no event.
                tree.updateDirectory(target, status: opened)
            }
            if result.watch != WatchOutcome.notRequested {
                tree.setWatch(max(result.watch, -1), of: target)
                if result.watch >= 0 { report.watches.append((result.watch, target)) }
                if result.watch == WatchOutcome.limitReached { report.unwatched.append(target) }
                if result.watch == WatchOutcome.outOfDescriptors { report.shortOfDescriptors.append(target) }
                if result.watch == WatchOutcome.failed { report.watchFailed.append(target) }
            }
            switch result.outcome {
            case .vanished:
                if target != directory {
                    tree.removeDirectory(target)
                } else {
                    report.failed = true
                }
                return
            case .unreadable(let error):
                warnings.append(
                    ScanWarning(kind: .unreadableDirectory, path: tree.relativePath(of: target), error: error))
                // Out of descriptors is not du's "unreadable": the directory can be listed once
                // some are free, and until then its total is not exact.
                if DescriptorShortage.isShortage(error) {
                    report.shortOfDescriptors.append(target)
                } else {
                    report.unreadable.append(target)
                }
            case .listed:
                // Only the first part of a listing that says so: later parts say it again.
                if result.searchDenied, report.unreadable.last != target { report.unreadable.append(target) }
            }
            if result.isComplete { report.listed += 1 }
            for (name, error) in result.unstatable {
                var path = tree.relativePath(of: target)
                if !path.isEmpty { path.append(UInt8(ascii: "/")) }
                path.append(contentsOf: name)
                warnings.append(ScanWarning(kind: .unstatableEntry, path: path, error: error))
            }
            if let recentSince {
                for entry in result.listing.entries
                where entry.status.kind != .directory
                    && max(entry.status.modifiedNanoseconds, entry.status.changedNanoseconds) >= recentSince
                {
                    report.recentlyWritten.append((target, Array(result.listing.name(of: entry))))
                }
            }
            for (crawlIndex, child) in tree.addListing(result.listing, to: target) {
                let slot = Int(crawlIndex)
                if slot >= directoryByCrawlIndex.count {
                    directoryByCrawlIndex.append(
                        contentsOf: repeatElement(nil, count: slot + 1 - directoryByCrawlIndex.count))
                }
                directoryByCrawlIndex[slot] = child
            }
            if let progress {
                if result.isComplete { counts.directories += 1 }
                counts.files += result.listing.entries.count
                for entry in result.listing.entries {
                    counts.allocatedBytes = Saturating.sum(counts.allocatedBytes, entry.status.allocatedBytes)
                }
                progress(counts)
            }
        }
        return (warnings, report)
    }
}

/// Special values `beforeListing` can return instead of a watch descriptor.
package enum WatchOutcome {
    /// No watch was asked for (a plain scan).
    package static let notRequested: Int32 = -1
    /// inotify_add_watch failed with ENOSPC: the user's watch limit is reached.
    package static let limitReached: Int32 = -2
    /// inotify_add_watch failed for another reason (the directory vanished, say).
    package static let failed: Int32 = -3
    /// inotify_add_watch failed with EMFILE or ENFILE.
    package static let outOfDescriptors: Int32 = -4
}

/// A tree scanned from a path given by the user.
package struct ScannedTree {
    package var tree: TallyTree
    package var warnings: [ScanWarning]
}

package enum RootError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: [UInt8], Errno)
    case notADirectory(path: [UInt8])

    /// What is wrong with ROOT and what to do about it.
    package var description: String {
        switch self {
        case .notADirectory(let path):
            return "'\(HumanText.name(path))' is not a directory: ROOT must be a directory"
        case .cannotOpen(_, let errno) where DescriptorShortage.isShortage(errno):
            return "cannot open the root: \(DescriptorShortage.startupMessage(limit: ResourceLimits.openFileLimit()))"
        case .cannotOpen(let path, let errno):
            return
                "cannot open root '\(HumanText.name(path))': \(errno). Check that it exists and that you may read it"
        }
    }
}

extension TreeScanner {
    /// Opens `path` (following a symlink given as the root itself) and scans it whole.
    package func scan(path: [UInt8], progress: ((CrawlProgress) -> Void)? = nil) throws(RootError) -> ScannedTree {
        let root = try openRoot(path)
        defer { root.descriptor.close() }
        var tree = TallyTree(root: root.status, lookup: .deferred)
        // At most the file system's inodes lie below the root: reserved, the tree never grows
        // by copying (only the pages written become memory).
        if let inodes = try? root.descriptor.fileSystemInodesInUse() { tree.reserveCapacity(files: inodes) }
        let (warnings, _) = crawl(root.descriptor, into: &tree, at: tree.root, progress: progress)
        return ScannedTree(tree: tree, warnings: warnings)
    }

    package func openRoot(_ path: [UInt8]) throws(RootError) -> (descriptor: FileDescriptor, status: FileStatus) {
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
