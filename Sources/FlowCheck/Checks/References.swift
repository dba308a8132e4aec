import FlowDescriptor
import Foundation

/// The checker's view of `${...}` references; finding them is ``ValueReference``'s.
enum Reference {
    typealias Namespace = ValueReference.Namespace

    static func all(in text: String) -> [ValueReference.Found] { ValueReference.all(in: text) }

    static func containsReference(_ text: String) -> Bool { ValueReference.appears(in: text) }

    /// Whether `text` is an acceptable source for a secret: exactly one env, input or info reference (an info
    /// key holds what a step provided at run time, such as a token a program fetched), or `prompt`.
    static func isSecretSource(_ text: String) -> Bool {
        if text == ValueReference.prompt { return true }
        let found = all(in: text)
        guard found.count == 1, let only = found.first, only.closed, only.offset == 0,
            ["env", "input", "info"].contains(only.namespace), text.hasSuffix("}"), !only.name.isEmpty
        else { return false }
        return text.count == only.namespace.count + only.name.count + 4
    }
}

extension CheckContext {
    /// Every `${...}` in the document is well formed, in a known namespace, and `info` names a known key.
    /// One walk over every scalar value for the checks that read values anywhere in the file: `${...}`
    /// references, and `http://` endpoints.
    mutating func checkScalarValues() {
        guard let root = descriptor.root else { return }
        let clearText = descriptor.security.allowInsecureHTTP?.value != true
        var trail: [Int] = []
        trail.reserveCapacity(16)
        var candidates: [[Int]] = []
        Self.collectScalarValues(below: root, trail: &trail, clearText: clearText, into: &candidates)
        for candidate in candidates {
            let (node, path) = Self.node(at: candidate, in: root, from: .root)
            guard let text = node.scalar?.text else { continue }
            if Reference.containsReference(text) { checkReferences(in: node, text: text, path: path) }
            if text.contains("{") { checkReferencesWithoutDollar(in: node, text: text, path: path) }
            if clearText, CheckContext.mentionsClearText(text) { checkClearText(in: node, path: path) }
        }
    }

    /// Collects the trail (positions from the root) of every scalar value (not key) below `node` that may hold a
    /// reference or an `http://` URL: a few of the file's values. The walk touches nothing but the tree and the
    /// trail, so the nodes are read where they are, not copied.
    private static func collectScalarValues(
        below node: Node, trail: inout [Int], clearText: Bool, into candidates: inout [[Int]]
    ) {
        switch node.content {
        case .scalar(let scalar):
            if mayHoldReferenceOrURL(scalar.text, clearText: clearText) { candidates.append(trail) }
        case .sequence(let elements):
            for (index, element) in elements.enumerated() {
                trail.append(index)
                collectScalarValues(below: element, trail: &trail, clearText: clearText, into: &candidates)
                trail.removeLast()
            }
        case .mapping(let pairs):
            for (index, pair) in pairs.enumerated() {
                trail.append(index)
                collectScalarValues(below: pair.value, trail: &trail, clearText: clearText, into: &candidates)
                trail.removeLast()
            }
        }
    }

    /// Whether `text` holds `${`, `{e` or `{i`, or (with `clearText`) `://`, in one pass over its bytes: the cheap
    /// filter in front of the exact checks, which most values never reach.
    static func mayHoldReferenceOrURL(_ text: String, clearText: Bool) -> Bool {
        let utf8 = text.utf8
        // Most values are too short to hold either, or are checked in place without a copy of the string.
        guard utf8.count >= 2 else { return false }
        return utf8.withContiguousStorageIfAvailable { bytes in
            guard containsBraceOrSlash(bytes) else { return false }
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "{") {
                    if index > 0, bytes[index - 1] == UInt8(ascii: "$") { return true }
                    // `{env.`, `{input.`, `{info.` without the `$` (FR311).
                    let next = index + 1 < bytes.count ? bytes[index + 1] : 0
                    if next == UInt8(ascii: "e") || next == UInt8(ascii: "i") { return true }
                } else if byte == UInt8(ascii: "/"), clearText, index >= 2,
                    bytes[index - 1] == UInt8(ascii: "/"), bytes[index - 2] == UInt8(ascii: ":")
                {
                    return true
                }
            }
            return false
        } ?? true  // Not contiguous (never so for native strings): the exact checks decide.
    }

    /// Whether `bytes` hold a `{` or a `/`, looked for eight bytes at a time: most values hold neither.
    static func containsBraceOrSlash(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A word has a zero byte exactly when (word - ones) & ~word & highs is not zero.
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        let raw = UnsafeRawBufferPointer(bytes)
        var index = 0
        while index + 8 <= raw.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasZeroByte(word ^ (ones &* 0x7B)) || hasZeroByte(word ^ (ones &* 0x2F)) { return true }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "/") { return true }
            index += 1
        }
        return false
    }

    /// Where the text at a scalar offset of `node`'s value `text` is: the exact column within a one-line scalar
    /// (past its opening quote), the scalar itself in a block scalar or one that spans lines.
    private static func locator(in node: Node, text: String) -> (Int) -> SourceLocation {
        let style = node.scalar!.style
        let singleLine = style != .literal && style != .folded && !containsNewline(text)
        let location = node.location
        return { offset in singleLine ? location.advanced(byColumns: offset + (style == .plain ? 0 : 1)) : location }
    }

    private mutating func checkReferences(in node: Node, text: String, path: DescriptorPath) {
        // A description is prose for people: a `${...}` there is text, not a reference.
        if case .key("description")? = path.lastComponent { return }
        let locate = Self.locator(in: node, text: text)
        for reference in Reference.all(in: text) {
            let location = locate(reference.offset)
            guard reference.closed else {
                report(
                    Diagnostic(
                        .invalidReference, "Reference `${\(reference.name)` is not closed with `}`.", at: location,
                        path: path))
                continue
            }
            guard let namespace = Reference.Namespace(rawValue: reference.namespace) else {
                let suggestion = Suggestion.closest(
                    to: reference.namespace, in: Reference.Namespace.allCases.map(\.rawValue))
                report(
                    Diagnostic(
                        .invalidReference,
                        "Reference `${\(reference.namespace).\(reference.name)}` uses unknown namespace "
                            + "`\(reference.namespace)`"
                            + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                        at: location, path: path, hint: "Use `${env.NAME}`, `${input.NAME}` or `${info.KEY}`."))
                continue
            }
            guard Self.isReferenceName(reference.name) else {
                report(
                    Diagnostic(
                        .invalidReference,
                        "Reference `${\(reference.namespace).\(reference.name)}` needs a name after "
                            + "`\(reference.namespace).`.",
                        at: location, path: path))
                continue
            }
            if namespace == .info, !declaredCommandOutputs.contains(reference.name) {
                _ = requireKnownKey(Located(reference.name, at: location), path: path, context: "a reference")
            }
        }
    }

    /// `{input.NAME}` (or `env`, `info`) without the `$` that makes it a reference: the value would be sent as
    /// written. A warning at the brace, with the reference it surely meant.
    private mutating func checkReferencesWithoutDollar(in node: Node, text: String, path: DescriptorPath) {
        if case .key("description")? = path.lastComponent { return }
        let locate = Self.locator(in: node, text: text)
        let scalars = Array(text.unicodeScalars)
        for (offset, scalar) in scalars.enumerated() where scalar == "{" && (offset == 0 || scalars[offset - 1] != "$")
        {
            guard let close = scalars[offset...].firstIndex(of: "}") else { break }
            let inner = String(String.UnicodeScalarView(scalars[(offset + 1)..<close]))
            guard let dot = inner.firstIndex(of: "."),
                let namespace = Reference.Namespace(rawValue: String(inner[..<dot])),
                Self.isReferenceName(String(inner[inner.index(after: dot)...]))
            else { continue }
            report(
                Diagnostic(
                    .referenceWithoutDollar,
                    "`{\(inner)}` is text, not a reference: a reference starts with `$`.", at: locate(offset),
                    path: path,
                    hint:
                        "Write `${\(inner)}` for the \(namespace.rawValue) value; without the `$` the text is used as "
                        + "it is written."))
        }
    }

    /// Whether `name` can name an environment variable, an input or an info key after `${namespace.`: letters,
    /// digits, `_`, `-` and `.`. ASCII names are read on their bytes, without Unicode property look-ups.
    static func isReferenceName(_ name: String) -> Bool {
        guard !name.isEmpty else { return false }
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            return name.utf8.allSatisfy(NameBytes.isNamePart)
        }
        return name.allSatisfy { $0.isLetter || $0.isNumber || "_-.".contains($0) }
    }

    /// Whether `text` holds a line break; ASCII text is read on its bytes.
    static func containsNewline(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.contains { $0 >= 0x0A && $0 <= 0x0D }
        }
        return text.contains(where: \.isNewline)
    }

    /// The node at `trail` (positions from `root`), with its path from `base`.
    private static func node(
        at trail: [Int], in root: Node, from base: DescriptorPath
    ) -> (Node, path: DescriptorPath) {
        var path = base
        var node = root
        for index in trail {
            switch node.content {
            case .sequence(let elements):
                path = path.appending(index: index)
                node = elements[index]
            case .mapping(let pairs):
                path = path.appending(pairs[index].key.scalar?.text ?? "")
                node = pairs[index].value
            case .scalar:
                return (node, path)
            }
        }
        return (node, path)
    }
}
