import Glibc

/// An iOS app sandbox: Documents, Library/Caches for several businesses (a feed, maps, video,
/// ads, WebKit's network cache, an URL cache), Application Support, Preferences and tmp.
///
/// Sizes follow what such caches hold: mostly files of a few KB, some of hundreds of KB and a
/// few of several MB. A few files are sparse (SQLite `-shm` files, interrupted downloads in
/// tmp/), so allocated and apparent sizes differ. About 250 files go in each directory, so
/// 200 000 files make a tree of about 800 directories.
enum SandboxLayout {
    static let defaultFileCount = 3000

    static func plan(fileCount: Int, seed: UInt64) -> TreePlan {
        var plan = TreePlan(seed: seed)
        var random = SplitMix64(seed: SplitMix64.derive(seed, stream: .max))
        for path in skeleton {
            plan.directory(path)
        }
        let fixed = fixedFiles(&random).prefix(fileCount)
        for (path, spec) in fixed {
            plan.addFixedFile(spec, in: path)
        }
        let zoneFileCounts = apportion(fileCount - fixed.count, weights: zones.map(\.share))
        for (zone, zoneFileCount) in zip(zones, zoneFileCounts) {
            add(zone, fileCount: zoneFileCount, to: &plan, &random)
        }
        return plan
    }

    /// Directories every sandbox has, even when nothing is in them.
    private static let skeleton = [
        "Documents", "Library/Caches", "Library/Preferences", "Library/Application Support",
        "Library/SplashBoard/Snapshots", "SystemData", "tmp",
    ]

    private static func fixedFiles(_ random: inout SplitMix64) -> [(String, FileSpec)] {
        func file(_ path: String, _ name: String, _ sizes: ClosedRange<Int>) -> (String, FileSpec) {
            let size = SizeProfile([(1, sizes.lowerBound, sizes.upperBound)]).sample(&random)
            return (path, FileSpec(name: name, apparentSize: size, writtenSize: size))
        }
        // SQLite's shared-memory index is sized with ftruncate and never written until used.
        func sharedMemory(_ path: String, _ name: String) -> (String, FileSpec) {
            (path, FileSpec(name: name, apparentSize: 32 * .kibibyte, writtenSize: 0))
        }
        let preferences = "Library/Preferences"
        let urlCache = "Library/Caches/com.example.app"
        let appSupport = "Library/Application Support/com.example.app"
        return [
            file("", ".com.apple.mobile_container_manager.metadata.plist", 400...900),
            file(preferences, "com.example.app.plist", 200...(6 * .kibibyte)),
            file(preferences, "com.example.feed.plist", 200...(6 * .kibibyte)),
            file(preferences, "com.example.maps.plist", 200...(6 * .kibibyte)),
            file(preferences, "com.example.video.plist", 200...(6 * .kibibyte)),
            file(preferences, "com.example.ads.plist", 200...(6 * .kibibyte)),
            file(preferences, "com.apple.WebKit.WebContent.plist", 100...(2 * .kibibyte)),
            file("Library/Cookies", "Cookies.binarycookies", (2 * .kibibyte)...(20 * .kibibyte)),
            file(urlCache, "Cache.db", (256 * .kibibyte)...(2 * .mebibyte)),
            file(urlCache, "Cache.db-wal", 0...(512 * .kibibyte)),
            sharedMemory(urlCache, "Cache.db-shm"),
            file(appSupport, "Model.sqlite", (1 * .mebibyte)...(6 * .mebibyte)),
            file(appSupport, "Model.sqlite-wal", 0...(1 * .mebibyte)),
            sharedMemory(appSupport, "Model.sqlite-shm"),
            file("Library/Caches/WebKit/NetworkCache/Version 16", "salt", 8...8),
        ]
    }

    /// A part of the sandbox that takes a share of the files, spread over leaf directories.
    private struct Zone: Sendable {
        var share: Double
        var filesPerLeaf: Int
        var recipe: FileRecipe
        var minimumLeaves = 1
        /// The path of a leaf directory; may draw from the random stream for names.
        var leafPath: @Sendable (_ leaf: Leaf, _ random: inout SplitMix64) -> String
    }

    private static func add(_ zone: Zone, fileCount: Int, to plan: inout TreePlan, _ random: inout SplitMix64) {
        let leafCount = max(zone.minimumLeaves, fileCount == 0 ? 1 : (fileCount - 1) / zone.filesPerLeaf + 1)
        // Names derived from the salt differ from seed to seed but never between two leaves.
        let salt = random.next()
        // Uneven on purpose: real cache buckets are never the same size.
        let weights = (0..<leafCount).map { _ in 0.3 + 1.4 * random.unit() }
        let counts = apportion(fileCount, weights: weights)
        for (index, count) in counts.enumerated() {
            let leaf = Leaf(index: index, count: leafCount, salt: salt)
            plan.addFiles(count, zone.recipe, in: zone.leafPath(leaf, &random))
        }
    }

    /// One leaf directory of a zone: the `index`th of `count`.
    private struct Leaf {
        var index: Int
        var count: Int
        /// Drawn once per zone.
        var salt: UInt64

        /// 64 bits that differ between the leaves of a zone.
        var unique: UInt64 {
            SplitMix64.mix(salt &+ UInt64(index))
        }
    }

    /// How many leaves go under each parent when a zone nests two levels.
    private static func groupSize(_ count: Int) -> Int {
        max(1, Int(sqrt(Double(count)).rounded(.up)))
    }

    private static func hex2(_ value: Int) -> String {
        value < 256 ? Hex.digits(UInt64(value), count: 2) : String(value, radix: 16)
    }

    private static let zones: [Zone] = [
        Zone(
            share: 0.26,
            filesPerLeaf: 300,
            recipe: FileRecipe(
                naming: .hashed(extensions: ["jpg", "jpg", "webp"]),
                sizes: SizeProfile([
                    (0.9, 800, 8 * .kibibyte), (0.098, 8 * .kibibyte, 48 * .kibibyte),
                    (0.002, 96 * .kibibyte, 400 * .kibibyte),
                ])
            ),
            leafPath: { leaf, _ in
                let group = groupSize(leaf.count)
                return "Library/Caches/com.example.feed/images/\(hex2(leaf.index / group))/\(hex2(leaf.index % group))"
            }
        ),
        Zone(
            share: 0.065,
            filesPerLeaf: 650,
            recipe: FileRecipe(
                naming: .hashed(extensions: ["json"]),
                sizes: SizeProfile([(0.9, 200, 4 * .kibibyte), (0.1, 4 * .kibibyte, 24 * .kibibyte)])
            ),
            leafPath: { leaf, _ in
                let index = leaf.index
                let endpoints = ["timeline", "profiles", "comments", "stories", "search", "notifications"]
                let endpoint = index < endpoints.count ? endpoints[index] : "shard-\(index)"
                return "Library/Caches/com.example.feed/api/" + endpoint
            }
        ),
        Zone(
            share: 0.30,
            filesPerLeaf: 280,
            recipe: FileRecipe(
                naming: .numbered(prefix: "", width: 1, suffix: ".png", randomStart: true),
                sizes: SizeProfile([
                    (0.06, 0, 0), (0.86, 200, 6 * .kibibyte), (0.08, 6 * .kibibyte, 32 * .kibibyte),
                ])
            ),
            leafPath: { leaf, random in
                let group = groupSize(leaf.count)
                let zoom = 8 + leaf.index / group
                let column = random.integer(in: 0...60_000) * group + leaf.index % group
                return "Library/Caches/com.example.maps/tiles/\(zoom)/\(column)"
            }
        ),
        Zone(
            share: 0.16,
            filesPerLeaf: 400,
            recipe: FileRecipe(
                naming: .webKitRecord,
                sizes: SizeProfile([
                    (0.8, 300, 6 * .kibibyte), (0.185, 6 * .kibibyte, 40 * .kibibyte),
                    (0.014, 40 * .kibibyte, 300 * .kibibyte), (0.001, 512 * .kibibyte, 3 * .mebibyte),
                ])
            ),
            leafPath: { leaf, random in
                // A SHA-1-like name; its first 16 digits come from the index, so partitions never collide.
                let partition = [
                    Hex.digits(leaf.unique, count: 16),
                    Hex.digits(random.next(), count: 16), Hex.digits(random.next(), count: 8),
                ]
                let name = partition.joined().uppercased()
                return "Library/Caches/WebKit/NetworkCache/Version 16/Records/\(name)/Resource"
            }
        ),
        Zone(
            share: 0.04,
            filesPerLeaf: 250,
            recipe: FileRecipe(
                naming: .hashed(extensions: ["webp", "webp", "html", "js", "mp4"]),
                sizes: SizeProfile([
                    (0.8, 1 * .kibibyte, 16 * .kibibyte), (0.195, 16 * .kibibyte, 120 * .kibibyte),
                    (0.005, 300 * .kibibyte, 1536 * .kibibyte),
                ])
            ),
            leafPath: { leaf, random in
                let campaign = 1000 + leaf.index * 3 + random.below(3)
                return "Library/Caches/com.example.ads/creatives/campaign-\(campaign)"
            }
        ),
        Zone(
            share: 0.002,
            filesPerLeaf: 40,
            recipe: FileRecipe(
                naming: .numbered(prefix: "segment_", width: 5, suffix: ".ts", randomStart: true),
                sizes: SizeProfile([(0.9, 64 * .kibibyte, 512 * .kibibyte), (0.1, 512 * .kibibyte, 2 * .mebibyte)])
            ),
            leafPath: { leaf, _ in
                // Three qualities of each stream; the stream's UUID is unique like `leaf.unique`.
                let stream = leaf.salt &+ UInt64(leaf.index / 3)
                let identifier = Hex.uuid(SplitMix64.mix(stream), SplitMix64.mix(~stream))
                let quality = ["480p", "720p", "1080p"][leaf.index % 3]
                return "Library/Caches/com.example.video/streams/\(identifier)/\(quality)"
            }
        ),
        Zone(
            share: 0.012,
            filesPerLeaf: 100,
            recipe: FileRecipe(
                naming: .document,
                sizes: SizeProfile([
                    (0.6, 1 * .kibibyte, 32 * .kibibyte), (0.39, 32 * .kibibyte, 256 * .kibibyte),
                    (0.01, 1 * .mebibyte, 4 * .mebibyte),
                ])
            ),
            minimumLeaves: 4,
            leafPath: { leaf, _ in
                let index = leaf.index
                let folders = ["Inbox", "Exports", "Drafts", "Photos/2023", "Photos/2024", "Shared/Alex", "Shared/Sam"]
                return "Documents/" + (index < folders.count ? folders[index] : "Projects/Project \(index)")
            }
        ),
        Zone(
            share: 0.10,
            filesPerLeaf: 300,
            recipe: FileRecipe(
                naming: .uuid(suffix: ".bin"),
                sizes: SizeProfile([
                    (0.75, 200, 6 * .kibibyte), (0.24, 6 * .kibibyte, 40 * .kibibyte),
                    (0.01, 64 * .kibibyte, 400 * .kibibyte),
                ])
            ),
            leafPath: { leaf, _ in
                "Library/Application Support/com.example.app/Attachments/\(hex2(leaf.index))"
            }
        ),
        Zone(
            share: 0.06,
            filesPerLeaf: .max,
            recipe: FileRecipe(
                naming: .uuid(suffix: ""),
                sizes: SizeProfile([
                    (0.88, 500, 10 * .kibibyte), (0.118, 10 * .kibibyte, 64 * .kibibyte),
                    (0.002, 96 * .kibibyte, 600 * .kibibyte),
                ])
            ),
            leafPath: { _, _ in "Library/Caches/com.example.app/fsCachedData" }
        ),
        Zone(
            share: 0.001,
            filesPerLeaf: .max,
            recipe: FileRecipe(
                naming: .download,
                sizes: SizeProfile([(1, 32 * .kibibyte, 2 * .mebibyte)]),
                sparseShare: 0.5
            ),
            leafPath: { _, _ in "tmp" }
        ),
    ]
}
