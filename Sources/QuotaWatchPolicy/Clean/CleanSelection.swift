import QuotaWatchCore

/// What a `clean --yes` (or `--dry-run`) deletes, as the command line names it.
///
/// The rule for the user's own files: a file under `Documents/` outside `Inbox/` is selected
/// only by its kind (`--kind video`) or its name (`--path Documents/x.mov`), never by a
/// category: `--category user-files` alone is refused, and `--category all` means every
/// category except `user-files`.
package struct CleanSelection: Sendable, Hashable {
    /// Whole categories; never `user-files`.
    package var categories: Set<CleanCategory> = []
    /// Single cache businesses (`--category caches:NAME`): `Library/Caches/NAME`.
    package var cacheGroups: Set<[UInt8]> = []
    /// User-file kinds (`--kind`).
    package var kinds: Set<UserFileKind> = []
    /// Files named one by one, or directories standing for the files below them.
    package var paths: [[UInt8]] = []
    /// Only files last modified more than this long ago.
    package var olderThan: Duration?
    /// Only files whose allocated size is larger than this.
    package var largerThan: UInt64?

    package init() {}

    /// Something is named: a category, a business, a kind or a path.
    package var namesSomething: Bool { !categories.isEmpty || !cacheGroups.isEmpty || !kinds.isEmpty || !paths.isEmpty }

    package func selects(_ item: CleanItem, nowNanoseconds: Int64) -> Bool {
        if let olderThan {
            let age = Saturating.difference(nowNanoseconds, item.modifiedNanoseconds)
            guard age > olderThan.clampedNanoseconds else { return false }
        }
        if let largerThan, item.allocatedBytes <= largerThan { return false }
        if paths.contains(where: { Self.covers($0, item.path) }) { return true }
        switch item.category {
        case .userFiles: return item.classification.kind.map(kinds.contains) ?? false
        case .caches: return categories.contains(.caches) || cacheGroups.contains(item.classification.group)
        default: return categories.contains(item.category)
        }
    }

    /// `path` is `item` or a directory above it.
    package static func covers(_ path: [UInt8], _ item: [UInt8]) -> Bool {
        item == path || (item.count > path.count && item.starts(with: path) && item[path.count] == UInt8(ascii: "/"))
    }

    /// Builds a selection from the words of `--category`, `--kind`, `--path`, `--older-than`
    /// and `--larger-than` (each as the raw bytes given). Every mistake names the value and
    /// the way out.
    package static func parse(
        categories: [[UInt8]], kinds: [[UInt8]], paths: [[UInt8]], olderThan: [UInt8]?, largerThan: [UInt8]?
    ) throws(CleanSelectionError) -> CleanSelection {
        var selection = CleanSelection()
        var userFilesNamed = false
        for word in categories {
            let text = try utf8(word, option: "--category")
            if text == "all" {
                selection.categories.formUnion(CleanCategory.allCases.filter { $0 != .userFiles })
            } else if text.hasPrefix("caches:") {
                let name = Array(text.utf8.dropFirst("caches:".utf8.count))
                guard !name.isEmpty, !name.contains(UInt8(ascii: "/")), name != Array("..".utf8), name != [0x2e]
                else {
                    throw CleanSelectionError(
                        "'--category \(text)': after 'caches:' comes one directory name below Library/Caches, "
                            + "as the listing shows it, such as caches:com.example.feed")
                }
                let unescaped = EscapedName.bytes(String(decoding: name, as: UTF8.self)) ?? name
                selection.cacheGroups.insert(Array("Library/Caches/".utf8) + unescaped)
            } else if let category = CleanCategory(rawValue: text) {
                if category == .userFiles {
                    userFilesNamed = true
                } else {
                    selection.categories.insert(category)
                }
            } else {
                throw CleanSelectionError(
                    "unknown category '\(text)'; the categories are "
                        + (CleanCategory.names + ["all", "caches:NAME"]).joined(separator: ", "))
            }
        }
        for word in kinds {
            let text = try utf8(word, option: "--kind")
            guard let kind = UserFileKind(rawValue: text) else {
                throw CleanSelectionError(
                    "unknown kind '\(text)'; the kinds of user files are " + UserFileKind.names.joined(separator: ", "))
            }
            selection.kinds.insert(kind)
        }
        for word in paths {
            let text = try utf8(
                word, option: "--path", hint: " (write other bytes as \\xNN, as the listing shows them)")
            switch TreeSelection.subtree(fromEscaped: text) {
            case .success(let path) where !path.isEmpty: selection.paths.append(path)
            case .success:
                throw CleanSelectionError("'--path \(text)' names ROOT itself; name a file or directory below it")
            case .failure(let error): throw CleanSelectionError("--path: \(error.description)")
            }
        }
        let documents = Array("Documents".utf8)
        if userFilesNamed && selection.kinds.isEmpty && !selection.paths.contains(where: { covers(documents, $0) }) {
            throw CleanSelectionError(
                "your own files under Documents/ are deleted only when you name them: add --kind KIND ("
                    + UserFileKind.names.joined(separator: ", ") + ") or --path PATH")
        }
        if let olderThan {
            let text = try utf8(olderThan, option: "--older-than")
            do {
                selection.olderThan = try TimeSpan(parsing: text).duration
            } catch {
                throw CleanSelectionError("--older-than: \(error.description)")
            }
        }
        if let largerThan {
            let text = try utf8(largerThan, option: "--larger-than")
            do {
                selection.largerThan = try ByteCount(parsing: text).bytes
            } catch {
                throw CleanSelectionError("--larger-than: \(error.description)")
            }
        }
        return selection
    }

    private static func utf8(_ word: [UInt8], option: String, hint: String = "") throws(CleanSelectionError) -> String {
        guard let text = String(validating: word, as: UTF8.self) else {
            throw CleanSelectionError(
                "'\(option) \(HumanText.name(word))' is not valid UTF-8\(hint); "
                    + "run 'quotawatch clean ROOT' to see the names it takes")
        }
        return text
    }
}

/// A selection the command line got wrong, with the value and the way out.
package struct CleanSelectionError: Error, Sendable, Hashable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
