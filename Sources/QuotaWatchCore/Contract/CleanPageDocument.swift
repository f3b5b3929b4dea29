/// `clean --json`'s page: what each category holds, the files held back, the totals.
/// `{"root","source":"daemon"|"crawl","engine"?,"categories":[{"name","title","files",
/// "allocated","apparent","groups":[{"name","path"|null,…totals}],"items":[{"path",
/// "allocated","apparent","age_seconds","modified","group"|null,"kind"|null}]}],
/// "held":[{"path","reason"}],"total":{"files","allocated","apparent"}}`; paths relative to
/// ROOT, escaped (``EscapedName``). The CLI writes it; scripts read it.
package struct CleanPageDocument: Sendable, Hashable, Codable {
    package struct Totals: Sendable, Hashable, Codable {
        package var files: Int64
        package var allocated: UInt64
        package var apparent: UInt64

        package init(files: Int64, allocated: UInt64, apparent: UInt64) {
            self.files = files
            self.allocated = allocated
            self.apparent = apparent
        }
    }

    /// One business of a category (a cache's bundle id, a kind of file).
    package struct Group: Sendable, Hashable, Codable {
        package var name: String
        /// Its directory; null for a group that is a kind of file, not a place.
        package var path: String?
        package var totals: Totals

        package init(name: String, path: String?, totals: Totals) {
            self.name = name
            self.path = path
            self.totals = totals
        }

        enum CodingKeys: String, CodingKey {
            case name, path
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(path, forKey: .path)
            try totals.encode(to: encoder)
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            path = try container.decodeIfPresent(String.self, forKey: .path)
            totals = try Totals(from: decoder)
        }
    }

    package struct Item: Sendable, Hashable, Codable {
        package var path: String
        package var allocated: UInt64
        package var apparent: UInt64
        package var ageSeconds: Int64
        /// The last change, ISO 8601 UTC.
        package var modified: String
        /// The group it is counted in; null when none.
        package var group: String?
        /// Its kind of file; null when none.
        package var kind: String?

        package init(
            path: String, allocated: UInt64, apparent: UInt64, ageSeconds: Int64, modified: String, group: String?,
            kind: String?
        ) {
            self.path = path
            self.allocated = allocated
            self.apparent = apparent
            self.ageSeconds = ageSeconds
            self.modified = modified
            self.group = group
            self.kind = kind
        }

        enum CodingKeys: String, CodingKey {
            case path, allocated, apparent, modified, group, kind
            case ageSeconds = "age_seconds"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(allocated, forKey: .allocated)
            try container.encode(apparent, forKey: .apparent)
            try container.encode(ageSeconds, forKey: .ageSeconds)
            try container.encode(modified, forKey: .modified)
            try container.encode(group, forKey: .group)
            try container.encode(kind, forKey: .kind)
        }
    }

    package struct Category: Sendable, Hashable, Codable {
        package var name: String
        package var title: String
        package var totals: Totals
        package var groups: [Group]
        package var items: [Item]

        package init(name: String, title: String, totals: Totals, groups: [Group], items: [Item]) {
            self.name = name
            self.title = title
            self.totals = totals
            self.groups = groups
            self.items = items
        }

        enum CodingKeys: String, CodingKey {
            case name, title, groups, items
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(title, forKey: .title)
            try container.encode(groups, forKey: .groups)
            try container.encode(items, forKey: .items)
            try totals.encode(to: encoder)
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            title = try container.decode(String.self, forKey: .title)
            groups = try container.decode([Group].self, forKey: .groups)
            items = try container.decode([Item].self, forKey: .items)
            totals = try Totals(from: decoder)
        }
    }

    /// A name kept back, and why (`open_for_writing`, `newest_dyld_cache`).
    package struct Held: Sendable, Hashable, Codable {
        package var path: String
        package var reason: String

        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// The daemon's counters, from a daemon.
    package struct Engine: Sendable, Hashable, Codable {
        package var events: UInt64
        package var rescannedDirectories: UInt64
        package var overflows: UInt64
        package var watches: Int64
        package var requests: UInt64

        package init(events: UInt64, rescannedDirectories: UInt64, overflows: UInt64, watches: Int64, requests: UInt64)
        {
            self.events = events
            self.rescannedDirectories = rescannedDirectories
            self.overflows = overflows
            self.watches = watches
            self.requests = requests
        }

        enum CodingKeys: String, CodingKey {
            case events, overflows, watches, requests
            case rescannedDirectories = "rescanned_dirs"
        }
    }

    package var root: String
    package var source: String
    package var engine: Engine?
    package var categories: [Category]
    package var held: [Held]
    package var total: Totals

    package init(
        root: String, source: String, engine: Engine?, categories: [Category], held: [Held], total: Totals
    ) {
        self.root = root
        self.source = source
        self.engine = engine
        self.categories = categories
        self.held = held
        self.total = total
    }
}
