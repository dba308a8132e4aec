/// Builds a ``Node`` tree from reader events and enforces what both readers share: limits on depth and
/// on nodes after alias expansion, scalar keys, duplicate keys, and YAML merge keys (`<<`).
struct TreeBuilder {
    private struct Open {
        var tag: CoreTag?
        /// One bit for each key in `pairs`, picked by its length: a key whose bit is clear cannot be
        /// there, so most keys of a small mapping skip the search for an earlier one. (Kept beside `tag`, where it
        /// takes no room of its own.)
        var keyBits: UInt32 = 0
        var anchor: String?
        var location: SourceLocation
        var nodeCountAtStart: Int
        var isMapping: Bool
        var elements: [Node] = []
        var pairs: [Pair] = []
        var pendingKey: PendingKey?
        var firstSeen: [String: SourceLocation] = [:]
        var merges: [Node] = []
        /// The tallest child so far: a scalar is 0, a collection 1 + its tallest child.
        var childHeight = 0

        /// Room made for children at the first one: most collections in flow files hold a few, and growing an
        /// array from one element reallocates it at every doubling.
        static let initialCapacity = 4

        /// Small mappings are searched in place; a large one gets an index once it passes this size.
        static let indexThreshold = 24

        /// Where key `text` first appeared in this mapping, if it did.
        func firstLocation(of text: String) -> SourceLocation? {
            if pairs.count >= Self.indexThreshold { return firstSeen[text] }
            guard keyBits & Self.bit(of: text) != 0 else { return nil }
            return pairs.firstIndex(ofKey: text).map { pairs[$0].key.location }
        }

        /// The bit of `keyBits` that stands for key `text`: its length (reading a byte costs more than it saves).
        static func bit(of text: String) -> UInt32 {
            1 &<< UInt32(truncatingIfNeeded: text.utf8.count & 31)
        }

        enum Outcome {
            case added
            /// The node (given back) where a mapping key was expected.
            case keyNotScalar(Node)
            /// `key` repeats a key first written at `first`; the pair is dropped.
            case duplicate(key: Node, first: SourceLocation)
        }

        /// Adds a child: an element, a key waiting for its value, or the value that completes a pair.
        mutating func add(_ node: consuming Node, height: Int) -> Outcome {
            if height > childHeight { childHeight = height }
            guard isMapping else {
                if elements.isEmpty { elements.reserveCapacity(Self.initialCapacity) }
                elements.append(node)
                return .added
            }
            // Moved out, not copied: the key leaves `pendingKey` for the pair.
            guard let key = pendingKey.take() else {
                guard case .scalar(let scalar) = node.content else { return .keyNotScalar(node) }
                pendingKey = PendingKey(scalar: scalar, tag: node.coreTag, location: node.location)
                return .added
            }
            if key.scalar.style == .plain, key.tag == nil, key.scalar.text.utf8.count == 2, key.scalar.text == "<<" {
                merges.append(node)
                return .added
            }
            if let first = firstLocation(of: key.scalar.text) {
                return .duplicate(key: key.node(), first: first)
            }
            if pairs.isEmpty { pairs.reserveCapacity(Self.initialCapacity) }
            if pairs.count >= Self.indexThreshold { firstSeen[key.scalar.text] = key.location }
            keyBits |= Self.bit(of: key.scalar.text)
            pairs.append(Pair(key: key.node(), value: node))
            if pairs.count == Self.indexThreshold { indexKeys() }
            return .added
        }

        /// Indexes the keys once the mapping has grown past the size searched in place.
        mutating func indexKeys() {
            for pair in pairs { firstSeen[pair.key.scalar?.text ?? ""] = pair.key.location }
        }

        /// Records a key just appended to `pairs` (by a merge).
        mutating func noteKey(_ text: String, at location: SourceLocation) {
            keyBits |= Self.bit(of: text)
            if pairs.count == Self.indexThreshold {
                indexKeys()
            } else if pairs.count > Self.indexThreshold {
                firstSeen[text] = location
            }
        }
    }

    /// A mapping key read, waiting for its value: kept in parts, so that reading its text copies nothing.
    private struct PendingKey {
        var scalar: Scalar
        var tag: CoreTag?
        var location: SourceLocation

        /// The key as a node, for its pair.
        consuming func node() -> Node { Node(.scalar(scalar), tag: tag, at: location) }
    }

    let limits: ReaderLimits
    private(set) var diagnostics: [Diagnostic] = []
    private(set) var root: Node?
    private var stack: [Open] = []
    private var nodeCount = 0
    private var anchors: [String: (node: Node, count: Int, height: Int)] = [:]

    init(limits: ReaderLimits) {
        self.limits = limits
    }

    var depth: Int { stack.count }

    mutating func startCollection(
        mapping: Bool, tag: CoreTag?, anchor: String?, at location: SourceLocation
    ) throws(ReadFailure) {
        guard stack.count < limits.maxDepth else {
            throw ReadFailure(
                Diagnostic(
                    .depthLimit,
                    "Nesting is deeper than \(limits.maxDepth) levels here.",
                    at: location,
                    hint: "Flatten the structure; flow files never need this depth."
                ))
        }
        try count(1, at: location)
        stack.append(
            Open(tag: tag, anchor: anchor, location: location, nodeCountAtStart: nodeCount - 1, isMapping: mapping))
    }

    mutating func endCollection() throws(ReadFailure) {
        guard var open = stack.popLast() else { return }
        let node: Node
        if open.isMapping {
            mergeKeys(into: &open)
            node = Node(.mapping(open.pairs), tag: open.tag, at: open.location)
        } else {
            node = Node(.sequence(open.elements), tag: open.tag, at: open.location)
        }
        let height = open.childHeight + 1
        if let anchor = open.anchor {
            anchors[anchor] = (node, nodeCount - open.nodeCountAtStart, height)
        }
        try add(node, height: height)
    }

    mutating func scalar(
        _ scalar: consuming Scalar, tag: CoreTag?, anchor: String?, at location: SourceLocation
    ) throws(ReadFailure) {
        try count(1, at: location)
        let node = Node(.scalar(scalar), tag: tag, at: location)
        if let anchor {
            anchors[anchor] = (copy node, 1, 0)
        }
        try add(consume node, height: 0)
    }

    mutating func alias(_ name: String, at location: SourceLocation) throws(ReadFailure) {
        guard let (target, size, height) = anchors[name] else {
            throw ReadFailure(
                Diagnostic(.undefinedAlias, "Alias `*\(name)` names no anchor defined before it.", at: location))
        }
        // An alias pastes its anchor's whole subtree here, so its height counts toward the depth limit.
        guard stack.count + height <= limits.maxDepth else {
            throw ReadFailure(
                Diagnostic(
                    .depthLimit,
                    "Alias `*\(name)` makes the nesting deeper than \(limits.maxDepth) levels here.",
                    at: location,
                    hint: "Flatten the structure; flow files never need this depth."))
        }
        try count(size, at: location)
        var copy = target
        copy.location = location
        try add(copy, height: height)
    }

    private mutating func count(_ nodes: Int, at location: SourceLocation) throws(ReadFailure) {
        nodeCount += nodes
        guard nodeCount <= limits.maxNodes else {
            throw ReadFailure(
                Diagnostic(
                    .aliasLimit,
                    "The document would expand to more than \(limits.maxNodes) nodes here.",
                    at: location,
                    hint: "Aliases that refer to aliases multiply; a flow file never needs this many nodes."
                ))
        }
    }

    private mutating func add(_ node: consuming Node, height: Int) throws(ReadFailure) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        // One in-place access to the open collection (a mutating call), not a copy of it per field touched.
        switch stack[stack.count - 1].add(node, height: height) {
        case .added:
            return
        case .keyNotScalar(let node):
            throw ReadFailure(
                Diagnostic(
                    .wrongType, "A mapping key must be a scalar, found \(node.kindDescription).", at: node.location))
        case .duplicate(let key, let first):
            diagnostics.append(
                Diagnostic(
                    .duplicateKey,
                    "Key `\(key.scalar?.text ?? "")` appears twice in this mapping; "
                        + "the first is at line \(first.line), column \(first.column).",
                    at: key.location,
                    hint: "Remove one of them; YAML keeps neither reliably."
                ))
        }
    }

    /// Applies `<<: *base` (or a list of them): keys written in the mapping win over merged ones.
    private mutating func mergeKeys(into open: inout Open) {
        for merge in open.merges {
            let sources = merge.elements ?? [merge]
            for source in sources {
                guard let pairs = source.pairs else {
                    diagnostics.append(
                        Diagnostic(
                            .wrongType,
                            "A merge key `<<` takes a mapping or a list of mappings, found \(source.kindDescription).",
                            at: source.location))
                    continue
                }
                for pair in pairs {
                    let text = pair.key.scalar?.text ?? ""
                    guard open.firstLocation(of: text) == nil else { continue }
                    open.pairs.append(pair)
                    open.noteKey(text, at: pair.key.location)
                }
            }
        }
    }
}

/// A problem that stops reading a file.
struct ReadFailure: Error {
    var diagnostic: Diagnostic

    init(_ diagnostic: Diagnostic) {
        self.diagnostic = diagnostic
    }
}
