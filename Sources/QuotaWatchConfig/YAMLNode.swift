/// A place in a YAML file, 1-based as editors count.
public struct YAMLMark: Sendable, Hashable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// A YAML document as a small tree: scalars stay text (the decoder gives them a type), and
/// every node remembers where it started, so an error can point at it.
public struct YAMLNode: Sendable, Hashable {
    public indirect enum Content: Sendable, Hashable {
        /// `plain` is false for quoted and block scalars, which are never null.
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        /// Pairs in file order; keys are nodes, since YAML allows any node as a key.
        case mapping([Pair])
    }

    public struct Pair: Sendable, Hashable {
        public var key: YAMLNode
        public var value: YAMLNode
    }

    public var content: Content
    public var mark: YAMLMark

    public init(_ content: Content, mark: YAMLMark) {
        self.content = content
        self.mark = mark
    }

    /// An empty plain scalar, `~` or `null`: what `key:` with nothing after it holds.
    public var isNull: Bool {
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
