/// Builds a ``Node`` tree from reader events and enforces what both readers share: limits on depth and
/// on nodes after alias expansion, scalar keys, duplicate keys, and YAML merge keys (`<<`).
struct TreeBuilder {
    private struct Open {
        var tag: String?
        var anchor: String?
        var location: SourceLocation
        var nodeCountAtStart: Int
        var isMapping: Bool
        var elements: [Node] = []
        var pairs: [Pair] = []
        var pendingKey: Node?
        var firstSeen: [String: SourceLocation] = [:]
        var merges: [Node] = []
        /// The tallest child so far: a scalar is 0, a collection 1 + its tallest child.
        var childHeight = 0

        /// Small mappings are searched in place; a large one gets an index once it passes this size.
        static let indexThreshold = 24

        /// Where key `text` first appeared in this mapping, if it did.
        func firstLocation(of text: String) -> SourceLocation? {
            if pairs.count >= Self.indexThreshold { return firstSeen[text] }
            return pairs.first { $0.key.scalar?.text == text }?.key.location
        }

        /// Records a key just appended to `pairs`.
        mutating func noteKey(_ text: String, at location: SourceLocation) {
            if pairs.count == Self.indexThreshold {
                for pair in pairs { firstSeen[pair.key.scalar?.text ?? ""] = pair.key.location }
            } else if pairs.count > Self.indexThreshold {
                firstSeen[text] = location
            }
        }
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

    mutating func startCollection(mapping: Bool, tag: String?, anchor: String?, at location: SourceLocation) throws(ReadFailure) {
        guard stack.count < limits.maxDepth else {
            throw ReadFailure(Diagnostic(
                .depthLimit,
                "Nesting is deeper than \(limits.maxDepth) levels here.",
                at: location,
                hint: "Flatten the structure; flow files never need this depth."
            ))
        }
        try count(1, at: location)
        stack.append(Open(tag: tag, anchor: anchor, location: location, nodeCountAtStart: nodeCount - 1, isMapping: mapping))
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

    mutating func scalar(_ scalar: Scalar, tag: String?, anchor: String?, at location: SourceLocation) throws(ReadFailure) {
        try count(1, at: location)
        let node = Node(.scalar(scalar), tag: tag, at: location)
        if let anchor {
            anchors[anchor] = (node, 1, 0)
        }
        try add(node, height: 0)
    }

    mutating func alias(_ name: String, at location: SourceLocation) throws(ReadFailure) {
        guard let (target, size, height) = anchors[name] else {
            throw ReadFailure(Diagnostic(.undefinedAlias, "Alias `*\(name)` names no anchor defined before it.", at: location))
        }
        // An alias pastes its anchor's whole subtree here, so its height counts toward the depth limit.
        guard stack.count + height <= limits.maxDepth else {
            throw ReadFailure(Diagnostic(
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
            throw ReadFailure(Diagnostic(
                .aliasLimit,
                "The document would expand to more than \(limits.maxNodes) nodes here.",
                at: location,
                hint: "Aliases that refer to aliases multiply; a flow file never needs this many nodes."
            ))
        }
    }

    private mutating func add(_ node: Node, height: Int) throws(ReadFailure) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let top = stack.count - 1
        stack[top].childHeight = max(stack[top].childHeight, height)
        if !stack[top].isMapping {
            stack[top].elements.append(node)
            return
        }
        guard let key = stack[top].pendingKey else {
            guard node.scalar != nil else {
                throw ReadFailure(Diagnostic(
                    .wrongType, "A mapping key must be a scalar, found \(node.kindDescription).", at: node.location))
            }
            stack[top].pendingKey = node
            return
        }
        stack[top].pendingKey = nil
        let text = key.scalar!.text
        if text == "<<", key.scalar!.style == .plain, key.tag == nil {
            stack[top].merges.append(node)
            return
        }
        if let first = stack[top].firstLocation(of: text) {
            diagnostics.append(Diagnostic(
                .duplicateKey,
                "Key `\(text)` appears twice in this mapping; the first is at line \(first.line), column \(first.column).",
                at: key.location,
                hint: "Remove one of them; YAML keeps neither reliably."
            ))
            return
        }
        stack[top].pairs.append(Pair(key: key, value: node))
        stack[top].noteKey(text, at: key.location)
    }

    /// Applies `<<: *base` (or a list of them): keys written in the mapping win over merged ones.
    private mutating func mergeKeys(into open: inout Open) {
        for merge in open.merges {
            let sources = merge.elements ?? [merge]
            for source in sources {
                guard let pairs = source.pairs else {
                    diagnostics.append(Diagnostic(
                        .wrongType, "A merge key `<<` takes a mapping or a list of mappings, found \(source.kindDescription).",
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
