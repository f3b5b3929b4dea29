import QuotaWatchCore

/// What the view says about its keys: the footer's hints, the `?` overlay, the `c` question.
extension WatchLayout {
    /// Every key ``WatchState``, ``ListCursor`` and the screen loop handle.
    package static let keys: [(key: String, action: String)] = [
        ("up/down, pgup/pgdn", "move in the list"),
        ("home/end", "first/last row"),
        ("enter, right", "open the selected directory"),
        ("backspace, left", "back to the parent directory"),
        ("s", "sort by size, name or growth (cycles)"),
        ("a", "show allocated or apparent sizes"),
        ("l", "the event log in full, wrapped (l, esc: back)"),
        ("pgup/pgdn, home/end in l", "scroll the event log"),
        ("c", "run every cleaner now (asks first)"),
        ("d", "delete the selected file or directory (asks first)"),
        ("p", "pause the whole screen; p again resumes"),
        ("Ctrl-L", "redraw the screen"),
        ("?, h", "this help"),
        ("q, Q", "quit (Ctrl-C too)"),
    ]

    package static let help = Overlay.help(title: "quotawatch watch: keys", keys: keys, footer: "any key closes")

    /// The footer's key hints, longest first: the footer shows the first that fits, so a
    /// narrow screen loses whole hints, never half of one.
    static func keyHints(paused: Bool, logExpanded: Bool) -> [String] {
        let pause = paused ? "p resume" : "p pause"
        let log = logExpanded ? "l list" : "l log"
        let hints = [
            [
                "arrows move", "enter open", "bksp up", "s sort", "a size", log, "c clean", "d delete", pause, "? help",
                "q quit",
            ],
            // At 80 columns `d` would cost enter's and backspace's hints: it is in the help (`?`).
            ["enter open", "bksp up", "s sort", "a size", log, "c clean", pause, "? help", "q quit"],
            ["s sort", "a size", log, "c clean", pause, "? help", "q quit"],
            [log, pause, "? help", "q quit"],
            ["? help", "q quit"],
        ]
        return hints.map { $0.joined(separator: "  ") }
    }

    /// The `d` question: what goes (the path, its size as the list shows it, its files), and
    /// what the deleter keeps whatever the answer.
    static func deleteConfirmation(_ target: DeleteTarget, _ model: WatchModel) -> ConfirmDialog {
        let path = DisplayWidth.builtIn.printable(EscapedName.string(target.path))
        let what =
            target.isDirectory
            ? "directory, \(target.files) file(s), \(model.format.string(target.size))"
            : "file, \(model.format.string(target.size))"
        var detail = [
            "./\(path)" + (target.isDirectory ? "/" : ""),
            "\(what) (\(model.state.showsApparent ? "apparent" : "allocated")), whole and for good.",
            "Kept whatever the answer: files open for writing, protected paths, mounts.",
        ]
        switch model.deletes {
        case true?: break
        case false?: detail.append("Without --clean the engine deletes nothing: it will refuse.")
        case nil: detail.append("The daemon deletes only if it runs with --clean, else it refuses.")
        }
        return ConfirmDialog(question: "Delete \(target.isDirectory ? "this directory" : "this file")?", detail: detail)
    }

    /// The `c` question: whether this engine deletes or only reports, and what the view knows
    /// there is to free (it cannot know what the cleaners' rules will pick).
    static func confirmation(_ model: WatchModel) -> ConfirmDialog {
        var detail: [String] = []
        switch model.deletes {
        case true?: detail.append("With --clean: the cleaners DELETE what their rules select.")
        case false?: detail.append("Without --clean: a dry run; it only reports what it would remove.")
        case nil: detail.append("The daemon deletes only if started with --clean, else it only reports.")
        }
        let leftovers = model.candidates.values
        let breached = (model.frame?.quotas ?? []).filter { $0.state == .breach }
        let warned = Set((model.frame?.quotas ?? []).filter { $0.state == .warning }.map(\.path))
            .subtracting(breached.map(\.path))
        if leftovers.isEmpty && breached.isEmpty && warned.isEmpty {
            detail.append("No leftover and no quota in warning or breach: nothing to evict.")
        } else {
            if !leftovers.isEmpty {
                let bytes = leftovers.reduce(UInt64(0)) { $0 + $1.allocated }
                detail.append("Leftovers listed: \(leftovers.count), \(model.format.string(bytes)).")
            }
            if !breached.isEmpty {
                let excess = breached.reduce(UInt64(0)) { total, quota in
                    total + (quota.used ?? 0) - min(quota.used ?? 0, quota.effectiveLimit)
                }
                detail.append("Quotas past their limits: \(breached.count), by \(model.format.string(excess)) in all.")
            }
            if !warned.isEmpty {
                detail.append("Quotas at their warning line: \(warned.count), evicted down to their targets.")
            }
            detail.append("What is freed depends on the cleaners' rules.")
        }
        return ConfirmDialog(question: "Run every cleaner now?", detail: detail)
    }
}
