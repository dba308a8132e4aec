/// A node of a YAML or JSON document, carrying where it was written.
///
/// Both readers produce the same tree, so every later stage is blind to the file format. Scalars stay
/// text: their type is decided by the field they land in, never by YAML 1.1 guessing.
public struct Node: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        case scalar(Scalar)
        case sequence([Node])
        case mapping([Pair])
    }

    public var content: Content
    /// The explicit core tag, if one was written (`!!str`); the readers refuse every other tag.
    public var coreTag: CoreTag?
    public var location: SourceLocation

    public init(_ content: Content, tag: CoreTag? = nil, at location: SourceLocation) {
        self.content = content
        self.coreTag = tag
        self.location = location
    }

    /// The explicit tag as written out in full (`tag:yaml.org,2002:str`), if one was written.
    public var tag: String? { coreTag?.rawValue }
}

/// The tags of the YAML core schema, the only ones a flow file may write. A node keeps one in a byte, so
/// that copying a node copies no string.
public enum CoreTag: String, Sendable, Hashable, CaseIterable {
    /// `!`, the non-specific tag: the value is a string.
    case nonSpecific = "!"
    case str = "tag:yaml.org,2002:str"
    case int = "tag:yaml.org,2002:int"
    case float = "tag:yaml.org,2002:float"
    case bool = "tag:yaml.org,2002:bool"
    case null = "tag:yaml.org,2002:null"
    case map = "tag:yaml.org,2002:map"
    case seq = "tag:yaml.org,2002:seq"
}

/// A scalar's text and how it was written.
public struct Scalar: Sendable, Hashable {
    public enum Style: Sendable, Hashable {
        /// Unquoted; may be read as a number, boolean or null where the field allows.
        case plain
        case singleQuoted
        case doubleQuoted
        case literal
        case folded
    }

    public var text: String
    public var style: Style

    public init(_ text: String, style: Style) {
        self.text = text
        self.style = style
    }

    /// Whether the scalar was quoted or written as a block: then it is always a string.
    public var isQuotedOrBlock: Bool { style != .plain }
}

/// One key and value of a mapping, in document order.
public struct Pair: Sendable, Hashable {
    public var key: Node
    public var value: Node

    public init(key: Node, value: Node) {
        self.key = key
        self.value = value
    }
}

extension Node {
    /// The scalar, if this node is one.
    public var scalar: Scalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    /// The pairs, if this node is a mapping.
    public var pairs: [Pair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// The elements, if this node is a sequence.
    public var elements: [Node]? {
        if case .sequence(let elements) = content { return elements }
        return nil
    }

    /// The value under the scalar key `key`, if this node is a mapping that has it.
    public subscript(key: String) -> Node? {
        guard let pairs, let position = pairs.firstIndex(ofKey: key) else { return nil }
        return pairs[position].value
    }

    /// The scalar, if it is plain and not tagged as a string (`!!str 1` is text): only such scalars may be
    /// read as numbers or booleans.
    public var plainScalar: Scalar? {
        guard let scalar, scalar.style == .plain, coreTag != .str else { return nil }
        return scalar
    }

    /// Whether the node is a null: `~`, `null`, or nothing at all, written plain.
    public var isNull: Bool {
        guard case .scalar(let scalar) = content, scalar.style == .plain, coreTag == nil else { return false }
        // On the length first: most values are longer than four bytes, and comparing strings is not free.
        switch scalar.text.utf8.count {
        case 0: return true
        case 1: return scalar.text.utf8.first == UInt8(ascii: "~")
        case 4: return scalar.text == "null" || scalar.text == "Null" || scalar.text == "NULL"
        default: return false
        }
    }

    /// How the node reads in a message: "a mapping", "a sequence", "the string `x`", "null".
    public var kindDescription: String {
        switch content {
        case .mapping: return "a mapping"
        case .sequence: return "a sequence"
        case .scalar(let scalar):
            if isNull { return "null" }
            if plainScalar != nil {
                if integerValue != nil { return "the number \(scalar.text)" }
                if ["true", "false"].contains(scalar.text) { return "the boolean \(scalar.text)" }
            }
            let shown = scalar.text.count > 40 ? String(scalar.text.prefix(37)) + "..." : scalar.text
            return "the string `\(shown)`"
        }
    }

    /// The number of nodes in this subtree, this one included.
    public var nodeCount: Int {
        switch content {
        case .scalar: return 1
        case .sequence(let elements): return elements.reduce(1) { $0 + $1.nodeCount }
        case .mapping(let pairs): return pairs.reduce(1) { $0 + $1.key.nodeCount + $1.value.nodeCount }
        }
    }
}

extension [Pair] {
    /// The position of the first pair whose key is the scalar `key`. Mappings in flow files are small, so they are
    /// searched in place: lengths first, since comparing two different strings is the slow path of `==`.
    public func firstIndex(ofKey key: String) -> Int? {
        let length = key.utf8.count
        return firstIndex { pair in
            guard case .scalar(let text) = pair.key.content else { return false }
            return text.text.utf8.count == length && text.text == key
        }
    }
}
