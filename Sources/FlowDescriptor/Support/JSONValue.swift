/// A JSON value with ordered objects, rendered deterministically (for JSON and SARIF output and the schema).
public enum JSONValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Members keep the order they were written in.
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rendered(pretty: false))
    }

    /// The member named `key` of an object, if any.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The JSON text; `pretty` indents by two spaces, one member per line.
    public func rendered(pretty: Bool = true) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value):
            if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
                output += String(Int(value))
            } else if value.isFinite {
                output += String(value)
            } else {
                output += "null"
            }
        case .string(let value): JSONValue.writeString(value, to: &output)
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: " ", count: indent + 2) }
                element.write(to: &output, pretty: pretty, indent: indent + 2)
            }
            if pretty { output += "\n" + String(repeating: " ", count: indent) }
            output += "]"
        case .object(let members):
            if members.isEmpty {
                output += "{}"
                return
            }
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: " ", count: indent + 2) }
                JSONValue.writeString(key, to: &output)
                output += pretty ? ": " : ":"
                value.write(to: &output, pretty: pretty, indent: indent + 2)
            }
            if pretty { output += "\n" + String(repeating: " ", count: indent) }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        // Most strings need no escape: appended whole rather than scalar by scalar.
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            output += value
            output += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue {
    /// The value of a node read from JSON (or YAML): quoted scalars are strings, plain ones numbers, booleans
    /// or null where they read as such.
    public init(node: Node) {
        switch node.content {
        case .scalar(let scalar):
            if node.plainScalar == nil {
                self = .string(scalar.text)
            } else if node.isNull {
                self = .null
            } else if let value = node.booleanValue {
                self = .bool(value)
            } else if let value = node.integerValue {
                self = .int(value)
            } else if let value = node.doubleValue {
                self = .double(value)
            } else {
                self = .string(scalar.text)
            }
        case .sequence(let elements):
            self = .array(elements.map(JSONValue.init(node:)))
        case .mapping(let pairs):
            self = .object(pairs.map { ($0.key.scalar?.text ?? "", JSONValue(node: $0.value)) })
        }
    }
}

extension Node {
    /// `value` as a document node, every node at `location` (a value that was not read from a file): strings
    /// quoted, so that they stay strings; numbers, booleans and null plain. ``JSONValue/init(node:)`` reads it back
    /// as `value`.
    public init(json value: JSONValue, at location: SourceLocation) {
        switch value {
        case .string(let text):
            self.init(.scalar(Scalar(text, style: .doubleQuoted)), at: location)
        case .array(let elements):
            self.init(.sequence(elements.map { Node(json: $0, at: location) }), at: location)
        case .object(let members):
            let pairs = members.map { key, member in
                Pair(
                    key: Node(.scalar(Scalar(key, style: .doubleQuoted)), at: location),
                    value: Node(json: member, at: location))
            }
            self.init(.mapping(pairs), at: location)
        case .null, .bool, .int, .double:
            self.init(.scalar(Scalar(value.rendered(pretty: false), style: .plain)), at: location)
        }
    }
}

extension JSONValue {
    /// The JSON document in `bytes`, read by flowrun's own reader (the one flow files go through); `nil` when the
    /// bytes are not one JSON document.
    public init?(parsing bytes: [UInt8]) {
        let read = DocumentReader.read(bytes: bytes, file: "JSON", format: .json)
        guard let root = read.root, read.diagnostics.isEmpty else { return nil }
        self.init(node: root)
    }

    /// The text of a string.
    public var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// A number's value, whole or not.
    public var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// A whole number's value (`3`, or `3.0`).
    public var int: Int? {
        switch self {
        case .int(let value): value
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }

    /// A boolean's value.
    public var bool: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The elements of an array.
    public var elements: [JSONValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }
}
