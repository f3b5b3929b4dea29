import Foundation

/// quotawatch(1), in roff, made from the subcommands' own help: what `help --man` prints and
/// `scripts/install` installs, so the manual never says something the help does not.
enum ManualPage {
    static func render(_ subcommands: [Subcommand], help: Subcommand, version: String) -> String {
        var page = ".TH QUOTAWATCH 1 \"\" \"quotawatch \(version)\" \"User Commands\"\n"
        page += ".SH NAME\nquotawatch \\- keep a directory tree's disk use in check as it happens\n"
        page += ".SH SYNOPSIS\n.B quotawatch\n.I subcommand\n[\\fIoptions\\fR]\n"
        page += ".SH DESCRIPTION\n"
        page += text(
            "QuotaWatch crawls a tree once, then keeps the size of every directory exact from inotify events "
                + "alone, counting as du does (allocated blocks, each inode once per subtree). It applies quotas, "
                + "disk levels and leftover rules, runs cleaners through a deleter that never leaves the root, "
                + "and reports through events, hooks, a control socket, a live view and Prometheus metrics.")
        page += ".SH COMMANDS\n"
        for subcommand in subcommands + [help] { page += section(subcommand) }
        page += ".SH EXIT STATUS\n"
        page += ".TP\n.B 0\nSuccess, help and \\-\\-version.\n"
        page += ".TP\n.B 1\nA runtime failure (the root gone, no daemon listening, an unreadable history).\n"
        page += ".TP\n.B 64\nBad usage: an unknown option or a bad value, named in the message.\n"
        page += ".TP\n.B 65\nA bad config file (file:line:column on standard error).\n"
        page += ".TP\n.B 66\nA config file that cannot be read.\n"
        page += ".TP\n.B 69\nrun: the control socket cannot be served "
        page += "(another daemon has it, or one already watches ROOT).\n"
        page += ".TP\n.B 71\nrun: the system refused a resource "
        page += "(inotify or fanotify, descriptors: LimitNOFILE), or the hooks.\n"
        page += ".TP\n.B 73\nrun: cleaning cannot be made safe "
        page += "(no state directory, an audit log that cannot be opened).\n"
        page += ".TP\n.B 74\nrun: ROOT cannot be opened or crawled at start.\n"
        page += ".SH FILES\n"
        page += ".TP\n.I /etc/quotawatch/INSTANCE.yaml\nThe config of the systemd unit quotawatch@INSTANCE.service.\n"
        page += ".TP\n.I $STATE_DIRECTORY/audit.jsonl\nThe fsync'd audit log of every deletion.\n"
        page += ".SH SEE ALSO\n.BR du (1),\n.BR ncdu (1),\n.BR inotify (7),\n.BR systemd.service (5)\n"
        return page
    }

    private static func section(_ subcommand: Subcommand) -> String {
        var text = ".SS \"\(escape("quotawatch " + subcommand.name))\"\n"
        text += ManualPage.text(subcommand.abstract)
        if !subcommand.discussion.isEmpty { text += ".PP\n" + ManualPage.text(subcommand.discussion) }
        text += ".PP\n.B \(escape(subcommand.usage))\n"
        for argument in subcommand.arguments {
            text += ".TP\n.I \(escape("<" + argument.name + ">"))\n" + ManualPage.text(argument.help)
        }
        for option in subcommand.options {
            text += ".TP\n.B \(escape(option.name))"
            if let value = option.valueName { text += " \\fI\(escape(value))\\fR" }
            text += "\n" + ManualPage.text(option.help)
        }
        return text
    }

    /// Running text: paragraphs kept, every line safe from being read as a request.
    private static func text(_ prose: String) -> String {
        prose.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.isEmpty ? ".PP\n" : escape(String(line)) + "\n"
        }.joined()
    }

    /// roff's specials: backslashes, hyphens (so they print as ASCII minus signs and can be
    /// searched for) and a leading `.` or `'`, which would start a request.
    static func escape(_ text: String) -> String {
        var escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }
}
