/// The known fields of a mapping, by name. Mappings in flow files are small, so the mapping's own pairs,
/// searched in place, beat hashing every key; nothing is copied, and unknown fields are skipped by position.
struct Fields {
    private let pairs: [Pair]
    /// Positions in `pairs` of fields that are not known (already reported); usually none.
    private var unknown: [Int] = []

    init(_ pairs: [Pair]) {
        self.pairs = pairs
    }

    /// How many known fields there are.
    var count: Int { pairs.count - unknown.count }

    mutating func skip(_ position: Int) {
        unknown.append(position)
    }

    subscript(name: String) -> Pair? {
        position(of: name).map { pairs[$0] }
    }

    /// The value of the field `name`, if it is there (and known), without copying its key.
    func value(_ name: String) -> Node? {
        position(of: name).map { pairs[$0].value }
    }

    /// Whether the field `name` is there (and known), without copying its pair.
    func contains(_ name: String) -> Bool {
        position(of: name) != nil
    }

    private func position(of name: String) -> Int? {
        guard let position = pairs.firstIndex(ofKey: name), !unknown.contains(position) else { return nil }
        return position
    }
}

/// The typed reads every section of the decoder shares: each reports a located diagnostic and
/// returns `nil` when the node is not what the field needs. Scalars are typed here, by the field.
struct NodeDecoding {
    private(set) var diagnostics: [Diagnostic] = []

    mutating func report(_ diagnostic: Diagnostic) {
        diagnostics.append(diagnostic)
    }

    /// The fields of a mapping, after reporting unknown ones (with "did you mean") and missing required ones.
    /// `unknownHint`: what to say about a field that is not known and resembles none (a step's parameter written
    /// beside `uses:` instead of under `with:`); by default the known fields.
    mutating func fields(
        of node: Node, at path: @autoclosure () -> DescriptorPath, known: [String], required: [String] = [],
        what: @autoclosure () -> String, unknownHint: ((String) -> String)? = nil
    ) -> Fields? {
        guard let pairs = node.pairs else {
            report(
                Diagnostic(
                    .wrongType, "Expected \(what()) to be a mapping, found \(node.kindDescription).", at: node.location,
                    path: path()))
            return nil
        }
        var result = Fields(pairs)
        for (position, pair) in pairs.enumerated() {
            let name = pair.key.scalar?.text ?? ""
            if known.contains(name) { continue }
            result.skip(position)
            let suggestion = Suggestion.closest(to: name, in: known)
            report(
                Diagnostic(
                    .unknownField,
                    "Unknown field `\(name)` in \(what())" + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                    at: pair.key.location, path: path().appending(name),
                    hint: suggestion != nil
                        ? nil
                        : unknownHint?(name) ?? "Known fields: " + known.map { "`\($0)`" }.joined(separator: ", ")
                            + ".",
                    replacement: suggestion))
        }
        for name in required where !result.contains(name) {
            // An unknown field taken for it (`use:` for `uses:`) was reported with "did you mean `uses`" above.
            let misspelt = pairs.contains { pair in
                let key = pair.key.scalar?.text ?? ""
                return !known.contains(key) && Suggestion.closest(to: key, in: known) == name
            }
            if misspelt { continue }
            report(
                Diagnostic(
                    .missingField, "Expected to find `\(name)` in \(what()), but it is missing.",
                    at: node.location, path: path().appending(name)))
        }
        return result
    }

    /// A scalar read as text: any non-null scalar qualifies (`version: 1.0` is the string `1.0`).
    mutating func string(
        _ node: Node, at path: @autoclosure () -> DescriptorPath, what: @autoclosure () -> String
    ) -> Located<String>? {
        guard let scalar = node.scalar, !node.isNull else {
            report(
                Diagnostic(
                    .wrongType, "Expected \(what()) to be a string, found \(node.kindDescription).", at: node.location,
                    path: path()))
            return nil
        }
        return Located(scalar.text, at: node.location)
    }

    /// A plain decimal integer; `"8"` (quoted) and `0x10` are not.
    mutating func int(
        _ node: Node, at path: @autoclosure () -> DescriptorPath, what: @autoclosure () -> String,
        range: ClosedRange<Int>? = nil
    ) -> Located<Int>? {
        guard let scalar = node.plainScalar, let value = Self.decimalInt(scalar.text) else {
            report(
                Diagnostic(
                    .wrongType, "Expected \(what()) to be an integer, found \(node.kindDescription).",
                    at: node.location, path: path()))
            return nil
        }
        if let range, !range.contains(value) {
            report(
                Diagnostic(
                    .invalidValue,
                    "Expected \(what()) to be between \(range.lowerBound) and \(range.upperBound), found \(value).",
                    at: node.location, path: path()))
            return nil
        }
        return Located(value, at: node.location)
    }

    /// A plain number.
    mutating func double(
        _ node: Node, at path: @autoclosure () -> DescriptorPath, what: @autoclosure () -> String
    ) -> Located<Double>? {
        guard let scalar = node.plainScalar, let value = Self.decimalDouble(scalar.text) else {
            report(
                Diagnostic(
                    .wrongType, "Expected \(what()) to be a number, found \(node.kindDescription).", at: node.location,
                    path: path()))
            return nil
        }
        return Located(value, at: node.location)
    }

    /// `true` or `false`, unquoted. YAML 1.1's `yes`, `no`, `on`, `off` are refused with a hint.
    mutating func bool(
        _ node: Node, at path: @autoclosure () -> DescriptorPath, what: @autoclosure () -> String
    ) -> Located<Bool>? {
        if let value = Self.boolean(node) {
            return Located(value, at: node.location)
        }
        let legacy = node.scalar.map { ["yes", "no", "on", "off", "y", "n"].contains($0.text.lowercased()) } ?? false
        report(
            Diagnostic(
                .wrongType, "Expected \(what()) to be a boolean, found \(node.kindDescription).", at: node.location,
                path: path(),
                hint: legacy ? "Write `true` or `false`; YAML 1.1 words such as `yes` are read as strings here." : nil))
        return nil
    }

    /// A duration such as `500ms`, `2s`, `1.5m`, `1h` or `1m30s`. A bare number gets a unit as its fix: seconds,
    /// or milliseconds from `millisecondsFrom` on (a `backoff: 500` means half a second, a `timeout: 30` half a
    /// minute).
    mutating func duration(
        _ node: Node, at path: @autoclosure () -> DescriptorPath, what: @autoclosure () -> String,
        millisecondsFrom: Int = 1000
    ) -> Located<Duration>? {
        if let scalar = node.scalar, let milliseconds = Duration.flowMilliseconds(scalar.text),
            milliseconds > Duration.maximumFlowMilliseconds
        {
            report(
                Diagnostic(
                    .invalidValue, "Expected \(what()) to be at most 24h, found `\(scalar.text)`.", at: node.location,
                    path: path(),
                    hint: "A step that waits longer than a day is better split, or driven by a `when` condition."))
            return nil
        }
        guard let scalar = node.scalar, let value = Duration.parse(flowText: scalar.text) else {
            let number = node.scalar.flatMap { Int($0.text) }
            report(
                Diagnostic(
                    .wrongType,
                    "Expected \(what()) to be a duration such as `500ms` or `30s`, found \(node.kindDescription).",
                    at: node.location, path: path(),
                    hint: number.map { "Add a unit: `\($0)ms` for milliseconds, `\($0)s` for seconds (or `m`, `h`)." },
                    replacement: number.map { "\($0)" + ($0 >= millisecondsFrom ? "ms" : "s") }))
            return nil
        }
        return Located(value, at: node.location)
    }

    /// One of a closed set of words, with "did you mean".
    mutating func oneOf<Value: RawRepresentable & CaseIterable & Sendable>(
        _ type: Value.Type, _ node: Node, at path: @autoclosure () -> DescriptorPath, what: @autoclosure () -> String
    ) -> Located<Value>? where Value.RawValue == String {
        guard let text = string(node, at: path(), what: what()) else { return nil }
        if let value = Value(rawValue: text.value) {
            return Located(value, at: text.location)
        }
        let names = Value.allCases.map(\.rawValue)
        let suggestion = Suggestion.closest(to: text.value, in: names)
        report(
            Diagnostic(
                .invalidValue,
                "Unknown \(what()) `\(text.value)`" + (suggestion.map { "; did you mean `\($0)`?" } ?? "."),
                at: text.location, path: path(),
                hint: "Expected one of " + names.map { "`\($0)`" }.joined(separator: ", ") + ".",
                replacement: suggestion))
        return nil
    }

    /// A sequence's elements, or a report.
    mutating func sequence(
        _ node: Node, at path: @autoclosure () -> DescriptorPath, what: @autoclosure () -> String
    ) -> [Node]? {
        guard let elements = node.elements else {
            report(
                Diagnostic(
                    .wrongType, "Expected \(what()) to be a sequence, found \(node.kindDescription).",
                    at: node.location, path: path()))
            return nil
        }
        return elements
    }

    /// A name usable for steps and keys: a letter, then letters, digits, `-`, `_` or `.`.
    mutating func identifier(
        _ node: Node, at path: @autoclosure () -> DescriptorPath, what: @autoclosure () -> String
    ) -> Located<String>? {
        guard let text = string(node, at: path(), what: what()) else { return nil }
        guard Self.isIdentifier(text.value) else {
            report(
                Diagnostic(
                    .invalidValue,
                    "Expected \(what()) to be a name made of letters, digits, `-`, "
                        + "`_` and `.` that starts with a letter, found `\(text.value)`.",
                    at: text.location, path: path()))
            return nil
        }
        return text
    }

    // MARK: Scalar grammar, shared with the checker through the public helpers below.

    static func isIdentifier(_ text: String) -> Bool {
        // The common case, ASCII, on the bytes, without Unicode property look-ups.
        var text = text
        let ascii: Bool? = text.withUTF8 { bytes in
            guard let first = bytes.first, first < 0x80 else { return nil }
            guard NameBytes.isLetter(first) else { return false }
            var index = 1
            while index < bytes.count {
                let byte = bytes[index]
                guard NameBytes.isNamePart(byte) else { return byte >= 0x80 ? nil : false }
                index += 1
            }
            return true
        }
        if let ascii { return ascii }
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "."
        }
    }

    static func decimalInt(_ text: String) -> Int? {
        // An optional sign, then ASCII digits without a leading zero (`0` itself is fine).
        let bytes = text.utf8
        var digits = bytes[...]
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if digits.count > 1, digits.first == UInt8(ascii: "0") { return nil }
        return Int(text.hasPrefix("+") ? String(text.dropFirst()) : text)
    }

    static func decimalDouble(_ text: String) -> Double? {
        let allowed = Set("0123456789+-.eE")
        guard !text.isEmpty, text.allSatisfy({ allowed.contains($0) }), text.contains(where: \.isNumber) else {
            return nil
        }
        return Double(text)
    }

    static func boolean(_ node: Node) -> Bool? {
        guard let scalar = node.plainScalar else { return nil }
        switch scalar.text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }
}

/// The ASCII bytes of names, read on the bytes rather than through Unicode properties: shared by the decoder's
/// identifiers and the checker's reference names.
public enum NameBytes {
    /// An ASCII letter.
    @inlinable
    public static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// An ASCII letter or digit, `-`, `_` or `.`: what a name may hold after its first character.
    @inlinable
    public static func isNamePart(_ byte: UInt8) -> Bool {
        // One bit for each byte a name may hold: `-`, `.` and the digits below 0x40, the letters and `_` above.
        let below: UInt64 = 0x03FF_6000_0000_0000
        let above: UInt64 = 0x07FF_FFFE_87FF_FFFE
        return byte < 0x40 ? below &>> UInt64(byte) & 1 != 0 : byte < 0x80 && above &>> UInt64(byte &- 0x40) & 1 != 0
    }
}

extension Node {
    /// The scalar read as a boolean the way the decoder reads one (`true`/`false`, unquoted).
    public var booleanValue: Bool? { NodeDecoding.boolean(self) }
    /// The scalar read as a plain decimal integer.
    public var integerValue: Int? { plainScalar.flatMap { NodeDecoding.decimalInt($0.text) } }
    /// The scalar read as a plain number.
    public var doubleValue: Double? { plainScalar.flatMap { NodeDecoding.decimalDouble($0.text) } }
}
