public import FlowDescriptor
public import FlowVocabulary

/// A value in the flow's info dictionary: the typed result of a transformer or a step.
public indirect enum InfoValue: Sendable, Hashable {
    case null
    case string(String)
    case secret(Secret)
    /// An absolute URL, kept as its text.
    case url(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case list([InfoValue])
    /// A struct or built-in record: named fields.
    case record([String: InfoValue])

    /// The value of a configuration node as written, without conversion: quoted scalars are strings, plain ones
    /// are numbers, booleans or null where they read as such.
    public init(node: Node) {
        self = InfoValue.from(json: JSONValue(node: node))
    }

    /// The field `name` of a record.
    public subscript(name: String) -> InfoValue? {
        if case .record(let fields) = self { return fields[name] }
        return nil
    }

    /// The text of a string, secret or URL.
    public var text: String? {
        switch self {
        case .string(let text), .url(let text): text
        case .secret(let secret): secret.revealed
        default: nil
        }
    }

    /// The value as JSON; secrets become `"<redacted>"` unless `revealingSecrets`.
    public func json(revealingSecrets: Bool = false) -> JSONValue {
        switch self {
        case .null: .null
        case .string(let text), .url(let text): .string(text)
        case .secret(let secret): .string(revealingSecrets ? secret.revealed : "<redacted>")
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .bool(let value): .bool(value)
        case .list(let values): .array(values.map { $0.json(revealingSecrets: revealingSecrets) })
        case .record(let fields):
            .object(fields.keys.sorted().map { ($0, fields[$0]!.json(revealingSecrets: revealingSecrets)) })
        }
    }

    /// The value from JSON written by ``json(revealingSecrets:)`` or a program, typed by `type`.
    public static func from(json: JSONValue) -> InfoValue {
        switch json {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let text): .string(text)
        case .array(let values): .list(values.map(from(json:)))
        case .object(let members):
            .record(Dictionary(members.map { ($0.0, from(json: $0.1)) }, uniquingKeysWith: { $1 }))
        }
    }

    /// How the value reads in a message or summary: secrets masked, long text shortened.
    public var summary: String {
        switch self {
        case .null: "null"
        case .secret: "<redacted>"
        case .string(let text), .url(let text): text.count > 60 ? String(text.prefix(57)) + "..." : text
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        case .list(let values): "[\(values.count) item\(values.count == 1 ? "" : "s")]"
        case .record(let fields):
            Self.shortened(
                "{" + fields.keys.sorted().map { "\($0): \(fields[$0]!.shortSummary)" }.joined(separator: ", ") + "}")
        }
    }

    /// A summary for inside a record: nested records and lists by size only.
    private var shortSummary: String {
        switch self {
        case .record(let fields): "{\(fields.count) fields}"
        default: summary
        }
    }

    private static func shortened(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(117)) + "...}" : text
    }

    /// The kind of value, for errors: "a string", "a mapping".
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .string: "a string"
        case .secret: "a secret"
        case .url: "a URL"
        case .int: "an integer"
        case .double: "a number"
        case .bool: "a boolean"
        case .list: "a list"
        case .record: "a mapping"
        }
    }
}

extension InfoValue {
    /// Whether the value has `type`; records and structs are checked field by field.
    public func conforms(to type: ValueType, records: (String) -> [ValueType.Field]?) -> Bool {
        switch (type, self) {
        case (.value, _): return true
        case (_, .null): return false
        case (.url, .url), (.string, .string), (.secret, .secret), (.int, .int), (.bool, .bool): return true
        case (.string, .url), (.secret, .string): return true
        case (.double, .double), (.double, .int): return true
        case (.list(nil), .list): return true
        case (.list(let element?), .list(let values)):
            return values.allSatisfy { $0.conforms(to: element, records: records) }
        case (.struct(let fields), .record(let values)): return Self.fields(fields, match: values, records: records)
        case (.record(let name), .record(let values)):
            guard let fields = records(name) else { return false }
            return Self.fields(fields, match: values, records: records)
        default: return false
        }
    }

    private static func fields(
        _ fields: [ValueType.Field], match values: [String: InfoValue], records: (String) -> [ValueType.Field]?
    ) -> Bool {
        fields.allSatisfy { field in
            guard let value = values[field.name], value != .null else { return field.optional }
            return value.conforms(to: field.type, records: records)
        }
    }
}
