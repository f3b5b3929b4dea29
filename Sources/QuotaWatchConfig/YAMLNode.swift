/// A place in a YAML file, 1-based as editors count.
package struct YAMLMark: Sendable, Hashable {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// A YAML document as a small tree: scalars stay text (the decoder gives them a type), and
/// every node remembers where it started, so an error can point at it.
package struct YAMLNode: Sendable, Hashable {
    package indirect enum Content: Sendable, Hashable {
        /// `plain` is false for quoted and block scalars, which are never null.
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        /// Pairs in file order; keys are nodes, since YAML allows any node as a key.
        case mapping([Pair])
    }

    package struct Pair: Sendable, Hashable {
        package var key: YAMLNode
        package var value: YAMLNode
    }

    package var content: Content
    package var mark: YAMLMark

    package init(_ content: Content, mark: YAMLMark) {
        self.content = content
        self.mark = mark
    }

    /// An empty plain scalar, `~` or `null`: what `key:` with nothing after it holds.
    package var isNull: Bool {
        guard case .scalar(let text, plain: true) = content else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    /// What the node is, for messages: "a mapping", "a list", "the text 'x'".
    var kindDescription: String {
        switch content {
        case .scalar(let text, _): isNull ? "nothing" : "'\(text)'"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }
}
