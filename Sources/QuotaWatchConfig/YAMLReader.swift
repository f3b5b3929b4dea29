import CYAML

/// Reads YAML text into a ``YAMLNode`` with libyaml's event parser.
///
/// One document only; anchors and aliases are resolved (an alias is a copy of the node its
/// anchor names). libyaml is only ever called here.
public enum YAMLReader {
    /// A syntax error reported by libyaml, or a document shape this reader refuses.
    public struct SyntaxError: Error, Equatable {
        public var mark: YAMLMark
        public var message: String
    }

    /// The document in `bytes`; nil when it is empty (no document, or only comments).
    public static func read(_ bytes: [UInt8]) throws(SyntaxError) -> YAMLNode? {
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
                    return .failure(unsafe parserError(parser.pointee))
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

    private static func parserError(_ parser: yaml_parser_t) -> SyntaxError {
        let problem = unsafe parser.problem.map { unsafe String(cString: $0) } ?? "the YAML is not well-formed"
        let context = unsafe parser.context.map { unsafe String(cString: $0) }
        let mark = unsafe parser.problem_mark
        var message = problem
        if let context { message += " " + context }
        return SyntaxError(mark: YAMLMark(line: mark.line + 1, column: mark.column + 1), message: message)
    }
}

/// Assembles nodes from the event stream with a stack of open collections.
private struct TreeBuilder {
    private enum Open {
        case sequence([YAMLNode], YAMLMark, anchor: String?)
        case mapping([YAMLNode], YAMLMark, anchor: String?)
    }

    private var stack: [Open] = []
    private var anchors: [String: YAMLNode] = [:]
    private var documents = 0
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
            try finish(YAMLNode(.scalar(text, plain: plain), mark: mark), anchor: unsafe Self.string(scalar.anchor))
        case YAML_ALIAS_EVENT:
            let name = unsafe Self.string(event.data.alias.anchor) ?? ""
            guard let node = anchors[name] else {
                throw YAMLReader.SyntaxError(mark: mark, message: "the alias '*\(name)' names no anchor before it")
            }
            try finish(node, anchor: nil)
        case YAML_SEQUENCE_START_EVENT:
            stack.append(.sequence([], mark, anchor: unsafe Self.string(event.data.sequence_start.anchor)))
        case YAML_MAPPING_START_EVENT:
            stack.append(.mapping([], mark, anchor: unsafe Self.string(event.data.mapping_start.anchor)))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let open = stack.popLast() else { break }
            switch open {
            case .sequence(let items, let start, let anchor):
                try finish(YAMLNode(.sequence(items), mark: start), anchor: anchor)
            case .mapping(let items, let start, let anchor):
                var pairs: [YAMLNode.Pair] = []
                var index = 0
                while index + 1 < items.count {
                    pairs.append(YAMLNode.Pair(key: items[index], value: items[index + 1]))
                    index += 2
                }
                try finish(YAMLNode(.mapping(pairs), mark: start), anchor: anchor)
            }
        default:
            break
        }
        return false
    }

    private mutating func finish(_ node: YAMLNode, anchor: String?) throws(YAMLReader.SyntaxError) {
        if let anchor { anchors[anchor] = node }
        guard let top = stack.popLast() else {
            document = node
            return
        }
        switch top {
        case .sequence(var items, let mark, let anchor):
            items.append(node)
            stack.append(.sequence(items, mark, anchor: anchor))
        case .mapping(var items, let mark, let anchor):
            items.append(node)
            stack.append(.mapping(items, mark, anchor: anchor))
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer = unsafe pointer else { return nil }
        return unsafe String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
    }
}
