/// The type of an info key's value: a base type, a list, a struct, or a built-in record such as
/// `oauth2-parameters`.
public indirect enum ValueType: Sendable, Hashable, CustomStringConvertible {
    case url
    case string
    /// A string that is never shown: traces, logs and summaries print `<redacted>`.
    case secret
    case int
    case double
    case bool
    /// Any value, unconverted.
    case value
    /// A list; `nil` element type means any.
    case list(ValueType?)
    /// A struct with named, typed fields, declared in the flow's `keys`.
    case `struct`([Field])
    /// A built-in record, named as in the catalog (`oauth2-parameters`, `passcode-policy`, ...).
    case record(String)

    /// A struct field.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var type: ValueType
        public var optional: Bool

        public init(name: String, type: ValueType, optional: Bool = false) {
            self.name = name
            self.type = type
            self.optional = optional
        }
    }

    /// The base types, each written in `keys` and `to:` as its ``description``.
    public static let allBaseTypes: [ValueType] = [.url, .string, .secret, .int, .double, .bool, .value, .list(nil)]

    /// Base type names as written in `keys` and `to:`.
    public static let baseTypes: [String: ValueType] = Dictionary(
        uniqueKeysWithValues: allBaseTypes.map { ($0.description, $0) })

    /// The base type named `name`: the inverse of ``description`` for ``allBaseTypes``, without hashing the name (a
    /// decoder asks for every key's type). `NameTableTests` hold the two to each other.
    public static func baseType(named name: String) -> ValueType? {
        switch name {
        case "url": .url
        case "string": .string
        case "secret": .secret
        case "int": .int
        case "double": .double
        case "bool": .bool
        case "value": .value
        case "list": .list(nil)
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .url: "url"
        case .string: "string"
        case .secret: "secret"
        case .int: "int"
        case .double: "double"
        case .bool: "bool"
        case .value: "value"
        case .list(nil): "list"
        case .list(let element?): "list of \(element)"
        case .struct(let fields): "struct {" + fields.map { "\($0.name): \($0.type)" }.joined(separator: ", ") + "}"
        case .record(let name): name
        }
    }

    /// Whether a value of type `provided` may be used where `self` is required.
    public func accepts(_ provided: ValueType) -> Bool {
        switch (self, provided) {
        case (.value, _), (_, .value): return true
        case (.string, .secret), (.secret, .string): return true
        case (.list(nil), .list), (.list, .list(nil)): return true
        case (.list(let a?), .list(let b?)): return a.accepts(b)
        default: return self == provided
        }
    }

    /// Whether values of this type are masked wherever they are shown.
    public var isSecret: Bool { self == .secret }
}
