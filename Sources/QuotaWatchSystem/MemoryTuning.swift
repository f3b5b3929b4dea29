import CQuotaWatchShims

package enum MemoryTuning {
    /// Makes the allocator give large freed blocks straight back to the kernel.
    ///
    /// glibc raises its mmap threshold each time a large block is freed, so the old buffers
    /// of a growing array end up on the heap and stay resident after they are freed. For a
    /// daemon whose tree grows in doublings that is up to twice its real footprint. Fixing the
    /// threshold keeps every block over 1 MiB in its own mapping, unmapped on free, while the
    /// crawler's per-directory buffers, smaller than that, are reused from the heap.
    ///
    /// The corresponding C function is `mallopt`.
    package static func returnLargeBlocksToKernel() {
        _ = system_mallopt(CInt(QW_M_MMAP_THRESHOLD), 1024 * 1024)
        _ = system_mallopt(CInt(QW_M_TRIM_THRESHOLD), 4 * 1024 * 1024)
    }

    /// Makes every thread allocate from the one main arena, for a process that lives long.
    ///
    /// glibc gives each new thread an arena of its own. A crawl helper's listings are freed by
    /// the tree's owner into the helper's arena, whose top stays resident: `malloc_trim` trims
    /// only the main arena's top, and another arena's top goes back only past the trim
    /// threshold (4 MiB, above). On sandbox-200k that held about 1.1 MiB, 6 B a file, after
    /// `ready` (docs/BENCHMARKS.md, "RSS per file while watching"). Few allocations are made
    /// per file (a listing is two buffers, a batch of events a few), and each thread's tcache
    /// takes the small ones without the arena's lock, so sharing it costs little. Call it
    /// before the first thread starts.
    ///
    /// The corresponding C function is `mallopt`.
    package static func keepOneArena() {
        _ = system_mallopt(CInt(QW_M_ARENA_MAX), 1)
    }

    /// Gives every free page the allocator holds back to the kernel, in all its arenas: the
    /// heap a storm left behind, which the trim threshold above would otherwise keep. Walks
    /// the heap, so it is for quiet moments.
    ///
    /// The corresponding C function is `malloc_trim`.
    package static func returnFreeMemory() {
        _ = system_malloc_trim(0)
    }
}
