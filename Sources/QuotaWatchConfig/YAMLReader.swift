import CYAML

/// Reads YAML text into a ``YAMLNode`` with libyaml's event parser.
///
/// One document only; anchors and aliases are resolved (an alias is a copy of the node its
/// anchor names). libyaml is only ever called here.
package enum YAMLReader {
    /// A syntax error reported by libyaml, or a document shape this reader refuses.
    package struct SyntaxError: Error, Equatable {
        package var mark: YAMLMark
        package var message: String
    }

    /// Lists and mappings nest at most this deep. Every reader of the tree may recurse, and a
    /// config nests three or four levels.
    package static let maximumDepth = 64
    /// A list holds at most this many items, a mapping this many keys.
    package static let maximumItems = 10_000
    /// A document holds at most this many values (scalars, lists and mappings), an alias
    /// counting as a copy of what it names, so that no alias bomb expands past it.
    package static let maximumNodes = 100_000

    /// The document in `bytes`; nil when it is empty (no document, or only comments).
    package static func read(_ bytes: [UInt8]) throws(SyntaxError) -> YAMLNode? {
        let result: Result<YAMLNode?, SyntaxError> = unsafe bytes.withUnsafeBufferPointer { buffer in
            let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
            defer { unsafe parser.deallocate() }
            guard unsafe yaml_parser_initialize(parser) == 1 else {
                return .failure(SyntaxError(mark: YAMLMark(line: 1, column: 1), message: "libyaml could not start"))
            }
            defer { unsafe yaml_parser_delete(parser) }
            unsafe yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            let event = UnsafeMutablePointer<yaml_event_t>.allocate(capacity: 1)
            defer { unsafe event.deallocate() }
            while true {
                guard unsafe yaml_parser_parse(parser, event) == 1 else {
                    return .failure(unsafe parserError(parser.pointee, bytes: buffer))
                }
                defer { unsafe yaml_event_delete(event) }
                let done: Bool
                do throws(YAMLReader.SyntaxError) {
                    done = try unsafe builder.consume(event.pointee)
                } catch {
                    return .failure(error)
                }
                if done { return .success(builder.document) }
            }
        }
        return try result.get()
    }

    private static func parserError(_ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>) -> SyntaxError {
        let problem = unsafe parser.problem.map { unsafe String(cString: $0) } ?? "the YAML is not well-formed"
        let context = unsafe parser.context.map { unsafe String(cString: $0) }
        var message = problem
        if let context { message += " " + context }
        if unsafe parser.error == YAML_READER_ERROR {
            // A bad byte (not UTF-8, a control character): libyaml gives its offset, not a mark.
            let offset = unsafe min(max(parser.problem_offset, 0), bytes.count)
            let before = unsafe Array(bytes[..<offset])
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            let value = unsafe parser.problem_value
            if value >= 0 { message += " (byte 0x" + (value < 16 ? "0" : "") + String(value, radix: 16) + ")" }
            message += "; a config is UTF-8 text"
            return SyntaxError(mark: YAMLMark(line: line, column: column), message: message)
        }
        let mark = unsafe parser.problem_mark
        return SyntaxError(mark: YAMLMark(line: mark.line + 1, column: mark.column + 1), message: message)
    }
}

/// Assembles nodes from the event stream with a stack of open collections, within the
/// reader's limits: a hostile file (40 000 nested flow collections, an alias bomb, a list of a
/// million items) is refused at the event that crosses a limit, naming its line, instead of
/// exhausting the stack or the time of whoever reads it.
private struct TreeBuilder {
    private struct Open {
        var isMapping: Bool
        var items: [YAMLNode] = []
        var mark: YAMLMark
        var anchor: String?
        /// ``TreeBuilder/nodes`` when it opened: the collection's own size is the difference.
        var nodesBefore: Int
    }

    private var stack: [Open] = []
    /// Each anchored node, with its size in nodes (an alias counts as a copy of it).
    private var anchors: [String: (node: YAMLNode, size: Int)] = [:]
    private var documents = 0
    /// Nodes in the document so far, aliases counted at their anchor's size.
    private var nodes = 0
    private(set) var document: YAMLNode?

    /// Takes one event; true at the end of the stream.
    mutating func consume(_ event: yaml_event_t) throws(YAMLReader.SyntaxError) -> Bool {
        let mark = unsafe YAMLMark(line: event.start_mark.line + 1, column: event.start_mark.column + 1)
        switch unsafe event.type {
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw YAMLReader.SyntaxError(mark: mark, message: "a second document ('---'); a config is one document")
            }
        case YAML_SCALAR_EVENT:
            let scalar = unsafe event.data.scalar
            let text = unsafe String(
                decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let plain = unsafe scalar.style == YAML_PLAIN_SCALAR_STYLE
            try count(1, at: mark)
            try finish(
                YAMLNode(.scalar(text, plain: plain), mark: mark), size: 1, anchor: unsafe Self.string(scalar.anchor),
                at: mark)
        case YAML_ALIAS_EVENT:
            let name = unsafe Self.string(event.data.alias.anchor) ?? ""
            guard let anchored = anchors[name] else {
                throw YAMLReader.SyntaxError(mark: mark, message: "the alias '*\(name)' names no anchor before it")
            }
            try count(anchored.size, at: mark)
            try finish(anchored.node, size: anchored.size, anchor: nil, at: mark)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            guard stack.count < YAMLReader.maximumDepth else {
                throw YAMLReader.SyntaxError(
                    mark: mark,
                    message: "lists and mappings nested more than \(YAMLReader.maximumDepth) deep; "
                        + "a config nests a few levels")
            }
            let isMapping = unsafe event.type == YAML_MAPPING_START_EVENT
            let anchor =
                isMapping
                ? unsafe Self.string(event.data.mapping_start.anchor)
                : unsafe Self.string(event.data.sequence_start.anchor)
            try count(1, at: mark)
            stack.append(Open(isMapping: isMapping, mark: mark, anchor: anchor, nodesBefore: nodes - 1))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let open = stack.popLast() else { break }
            let size = nodes - open.nodesBefore
            if open.isMapping {
                var pairs: [YAMLNode.Pair] = []
                pairs.reserveCapacity(open.items.count / 2)
                var index = 0
                while index + 1 < open.items.count {
                    pairs.append(YAMLNode.Pair(key: open.items[index], value: open.items[index + 1]))
                    index += 2
                }
                try finish(YAMLNode(.mapping(pairs), mark: open.mark), size: size, anchor: open.anchor, at: mark)
            } else {
                try finish(YAMLNode(.sequence(open.items), mark: open.mark), size: size, anchor: open.anchor, at: mark)
            }
        default:
            break
        }
        return false
    }

    /// Counts `size` more nodes, refusing a document past ``YAMLReader/maximumNodes``.
    private mutating func count(_ size: Int, at mark: YAMLMark) throws(YAMLReader.SyntaxError) {
        nodes += size
        guard nodes <= YAMLReader.maximumNodes else {
            throw YAMLReader.SyntaxError(
                mark: mark,
                message: "more than \(YAMLReader.maximumNodes) values in the document (an alias counts as "
                    + "a copy of what it names); a config holds a few hundred")
        }
    }

    private mutating func finish(
        _ node: YAMLNode, size: Int, anchor: String?, at mark: YAMLMark
    ) throws(YAMLReader.SyntaxError) {
        if let anchor { anchors[anchor] = (node, size) }
        guard !stack.isEmpty else {
            document = node
            return
        }
        // Appended in place: taking the top off the stack and putting it back copied the
        // whole list each time, and 20 000 items took 11 s.
        let top = stack.count - 1
        let limit = stack[top].isMapping ? 2 * YAMLReader.maximumItems : YAMLReader.maximumItems
        guard stack[top].items.count < limit else {
            let what = stack[top].isMapping ? "keys" : "items"
            throw YAMLReader.SyntaxError(
                mark: mark,
                message:
                    "more than \(YAMLReader.maximumItems) \(what) in the \(stack[top].isMapping ? "mapping" : "list") "
                    + "that starts at line \(stack[top].mark.line)")
        }
        stack[top].items.append(node)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer = unsafe pointer else { return nil }
        return unsafe String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
    }
}
