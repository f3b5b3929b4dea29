/// A glob over paths relative to ROOT, matched component by component on raw bytes.
///
/// - `*` matches any run of characters within one component, `?` one character, `[a-z]`,
///   `[!a-z]` or `[^a-z]` one character of a class; none of them ever matches `/`.
/// - `**` as a whole component matches any number of components, zero included.
/// - `*` and `?` match a leading dot too: hidden directories take disk space like any other.
/// - `\xNN` is the raw byte NN (how a name that is not UTF-8 is written, as in every path
///   QuotaWatch prints), `\\` a backslash, `\*`, `\?`, `\[`, `\]` the character itself.
/// - `.` is ROOT itself; a leading `./` is ignored.
///
/// Matching is an NFA walk whose state is a bit set of positions in the component list, so
/// a directory's state follows from its parent's state and its own name alone.
package struct PathGlob: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal([UInt8])
        case pattern(ComponentPattern)
        case anyDepth
    }

    /// The glob as written.
    package let text: String
    let segments: [Segment]

    /// Globs are kept to 63 components so that a match state fits one machine word.
    package static let maximumComponents = 63

    package var description: String { text }

    /// Compiles a glob written as text (UTF-8, with `\xNN` escapes for other bytes).
    package init(_ text: String) throws(GlobError) {
        try self.init(bytes: Array(text.utf8), text: text)
    }

    /// Compiles a glob given as raw bytes, such as a command-line word.
    package init(bytes: [UInt8]) throws(GlobError) {
        try self.init(bytes: bytes, text: Self.text(of: bytes))
    }

    private init(bytes: [UInt8], text: String) throws(GlobError) {
        self.text = text
        self.segments = try GlobCompiler.compile(bytes, text: text)
    }

    /// Glob bytes as glob text: bytes that are not UTF-8 become `\xNN`; backslashes stay,
    /// since they already escape in a glob.
    static func text(of bytes: [UInt8]) -> String {
        var text = ""
        var index = 0
        while index < bytes.count {
            let (_, length) = CharacterUnits.scalarAt(bytes, index)
            if length == 0 {
                text += "\\x" + (bytes[index] < 16 ? "0" : "") + String(bytes[index], radix: 16)
                index += 1
            } else {
                text += String(decoding: bytes[index..<index + length], as: UTF8.self)
                index += length
            }
        }
        return text
    }

    /// A match state: bit i set means "the first i segments have matched the path so far".
    package struct State: Sendable, Hashable {
        var positions: UInt64
        /// No extension of the path can match any more.
        package var isDead: Bool { positions == 0 }
    }

    /// The state at ROOT, before any component.
    package var rootState: State { closure(State(positions: 1)) }

    /// The state after the first `count` segments matched (used by ``RuleIndex`` when a
    /// glob's literal prefix was matched through its trie).
    func state(afterSegments count: Int) -> State { closure(State(positions: 1 << UInt64(count))) }

    /// The state of a directory named `name` whose parent is in state `parent`.
    package func step(_ parent: State, name: some Collection<UInt8>) -> State {
        var next: UInt64 = 0
        var remaining = parent.positions
        while remaining != 0 {
            let position = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            guard position < segments.count else { continue }
            switch segments[position] {
            case .anyDepth: next |= 1 << UInt64(position)
            case .literal(let bytes): if bytes.elementsEqual(name) { next |= 1 << UInt64(position + 1) }
            case .pattern(let pattern): if pattern.matches(name) { next |= 1 << UInt64(position + 1) }
            }
        }
        return closure(State(positions: next))
    }

    /// Whether the path that led to `state` matches the whole glob.
    package func isMatch(_ state: State) -> Bool { state.positions & (1 << UInt64(segments.count)) != 0 }

    /// Whether `path` (relative to ROOT, components separated by `/`; `.` or empty for ROOT)
    /// matches.
    package func matches(_ path: some Collection<UInt8>) -> Bool {
        var state = rootState
        for component in PathComponents.split(path) {
            state = step(state, name: component)
            if state.isDead { return false }
        }
        return isMatch(state)
    }

    /// The leading components without wildcards, which ``RuleIndex`` indexes.
    var literalPrefix: [[UInt8]] {
        var prefix: [[UInt8]] = []
        for segment in segments {
            guard case .literal(let bytes) = segment else { break }
            prefix.append(bytes)
        }
        return prefix
    }

    /// Adds the positions reachable by letting a `**` match zero components.
    private func closure(_ state: State) -> State {
        var positions = state.positions
        for (index, segment) in segments.enumerated() where segment == .anyDepth {
            if positions & (1 << UInt64(index)) != 0 { positions |= 1 << UInt64(index + 1) }
        }
        return State(positions: positions)
    }
}

/// A glob that cannot be compiled: which glob, what is wrong, and what is allowed.
package struct GlobError: Error, Equatable, CustomStringConvertible {
    package var glob: String
    package var reason: String
    package var description: String {
        "invalid glob '\(glob)': \(reason); a glob is a path relative to ROOT whose components may use "
            + "*, ?, [a-z] and a whole ** component, with \\xNN for a raw byte and \\\\ for a backslash"
    }
}

/// Splitting a relative path into its components; `.` and empty components are skipped.
package enum PathComponents {
    package static func split(_ path: some Collection<UInt8>) -> [ArraySlice<UInt8>] {
        Array(path).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).filter {
            !$0.elementsEqual([UInt8(ascii: ".")])
        }
    }
}
