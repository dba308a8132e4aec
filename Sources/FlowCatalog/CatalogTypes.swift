public import FlowDescriptor
public import FlowVocabulary

/// The type a step, transformer or provider parameter takes.
public enum ParameterType: Sendable, Hashable, CustomStringConvertible {
    case string
    /// A secret: never a literal in a flow file; `${env.NAME}`, `${input.NAME}` or `prompt`.
    case secret
    case url
    case int
    case bool
    case duration
    case oneOf([String])
    case stringList
    case stringMap
    /// An info key name.
    case key
    /// A list of info key names.
    case keyList
    /// A mapping of info key names to types (what a `command` step provides).
    case keyTypes
    /// A program and its arguments: a string or a list of strings.
    case command
    /// A list of mappings, each with the fields these specs describe (a consent step's `pages`).
    case mappingList([ParameterSpec])

    public var description: String {
        switch self {
        case .string: "string"
        case .secret: "secret"
        case .url: "url"
        case .int: "int"
        case .bool: "bool"
        case .duration: "duration"
        case .oneOf(let values): values.joined(separator: " | ")
        case .stringList: "list of strings"
        case .stringMap: "map of strings"
        case .key: "info key"
        case .keyList: "list of info keys"
        case .keyTypes: "map of info keys to types"
        case .command: "string or list of strings"
        case .mappingList(let fields): "list of mappings (" + fields.map(\.name).joined(separator: ", ") + ")"
        }
    }
}

/// What a parameter is when the flow leaves it out.
public enum ParameterDefault: Sendable, Hashable, CustomStringConvertible {
    /// This value, written as a flow file would write it; the built-in reads it from here, so the catalog and
    /// the implementation cannot disagree.
    case value(String)
    /// Worked out at run time (the flow's application ID, a device ID generated once); described in prose.
    case derived(String)

    /// The value, when the default is one.
    public var value: String? {
        if case .value(let text) = self { text } else { nil }
    }

    public var description: String {
        switch self {
        case .value(let text): text
        case .derived(let prose): prose
        }
    }
}

/// One parameter of a built-in.
public struct ParameterSpec: Sendable, Hashable {
    public var name: String
    public var type: ParameterType
    public var required: Bool
    public var defaultValue: ParameterDefault?
    public var summary: String

    /// A parameter whose default, if any, is a value.
    public init(
        _ name: String, _ type: ParameterType, required: Bool = false, default value: String? = nil, _ summary: String
    ) {
        self.init(name, type, required: required, defaultValue: value.map(ParameterDefault.value), summary)
    }

    /// A parameter whose default is worked out at run time, described by `derived`.
    public init(_ name: String, _ type: ParameterType, derived: String, _ summary: String) {
        self.init(name, type, required: false, defaultValue: .derived(derived), summary)
    }

    private init(
        _ name: String, _ type: ParameterType, required: Bool, defaultValue: ParameterDefault?, _ summary: String
    ) {
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
        self.summary = summary
    }
}

extension [ParameterSpec] {
    /// The position of the parameter `name` (lengths compared first: most names differ in length).
    public func position(named name: String) -> Int? {
        let length = name.utf8.count
        return firstIndex { $0.name.utf8.count == length && $0.name == name }
    }

    /// The parameter `name`, if there is one.
    public func named(_ name: String) -> ParameterSpec? {
        position(named: name).map { self[$0] }
    }

    /// The default value of parameter `name`, when it has one that is a value.
    public func defaultValue(of name: String) -> String? {
        position(named: name).flatMap { self[$0].defaultValue?.value }
    }
}

/// An info key a built-in requires or provides.
public struct KeySpec: Sendable, Hashable {
    public var name: String
    public var type: ValueType
    /// An optional requirement is used when present and never an error when missing.
    public var optional: Bool
    /// The requirement holds only when this parameter has one of these values (its default counts).
    public var onlyWhen: Condition?

    public struct Condition: Sendable, Hashable {
        public var parameter: String
        public var values: [String]
    }

    public init(
        _ name: String, _ type: ValueType, optional: Bool = false, when parameter: String? = nil,
        is values: [String] = []
    ) {
        self.name = name
        self.type = type
        self.optional = optional
        self.onlyWhen = parameter.map { Condition(parameter: $0, values: values) }
    }
}

/// What a step waits on, which sets its default timeout.
public enum WaitKind: String, Sendable, Hashable, CaseIterable {
    /// A person: a prompt, a browser login.
    case person
    /// A server answering a request.
    case server
    /// Work on this machine.
    case local

    /// The timeout a step of this kind gets when the flow sets none.
    public var defaultTimeout: Duration {
        switch self {
        case .person: .seconds(300)
        case .server: .seconds(30)
        case .local: .seconds(60)
        }
    }
}

/// A built-in step: what it takes, requires, provides and waits on.
public struct StepSpec: Sendable, Hashable {
    public var name: String
    /// The SDK's class names, accepted as aliases.
    public var aliases: [String]
    public var summary: String
    public var parameters: [ParameterSpec]
    public var requires: [KeySpec]
    public var provides: [KeySpec]
    public var waits: WaitKind
    /// The step also provides every key of the flow's transform tree (the welcome step).
    public var providesTransformKeys: Bool
    /// The step opens or creates the encrypted store.
    public var opensStore: Bool
    /// The parameter that lists further required keys (a `command` step's `inputs`).
    public var requiresFromParameter: String?
    /// The parameter that declares further provided keys with types (a `command` step's `provides`).
    public var providesFromParameter: String?
    /// The authentication methods the step implements.
    public var authenticates: [AuthenticationMethod]
    /// The operations on an earlier onboarding (``Mode/isOperation``) the step performs when a flow lists it
    /// in that mode. For a built-in step the registry derives them from the protocols its type conforms to.
    public var operations: [Mode] = []
    /// The step keeps what only the encrypted store may hold (a consent step's answers), so its flow needs a
    /// store-manager step.
    public var needsStore: Bool

    /// A step's description: what it takes, requires and provides. Custom steps registered through
    /// `StepRegistry.register` describe themselves with one.
    public init(
        name: String, aliases: [String] = [], summary: String, parameters: [ParameterSpec] = [],
        requires: [KeySpec] = [],
        provides: [KeySpec] = [], waits: WaitKind, providesTransformKeys: Bool = false, opensStore: Bool = false,
        requiresFromParameter: String? = nil, providesFromParameter: String? = nil,
        authenticates: [AuthenticationMethod] = [], needsStore: Bool = false
    ) {
        self.name = name
        self.aliases = aliases
        self.summary = summary
        self.parameters = parameters
        self.requires = requires
        self.provides = provides
        self.waits = waits
        self.providesTransformKeys = providesTransformKeys
        self.opensStore = opensStore
        self.requiresFromParameter = requiresFromParameter
        self.providesFromParameter = providesFromParameter
        self.authenticates = authenticates
        self.needsStore = needsStore
    }

    /// The parameter spec named `name`.
    public func parameter(_ name: String) -> ParameterSpec? {
        parameters.named(name)
    }
}

/// A built-in transformer: a conversion usable as `to:`, or a structure reader usable with `use:`.
public struct TransformerSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Converts one value to this type; used in `{to: NAME, key: KEY}`.
        case conversion(ValueType)
        /// Reads a whole structure and provides these keys; parameters of type `.key` name further keys.
        case structure(provides: [KeySpec], keyParameters: [String: ValueType])
    }

    public var name: String
    public var aliases: [String]
    public var summary: String
    public var kind: Kind
    public var parameters: [ParameterSpec]

    public init(name: String, aliases: [String] = [], summary: String, kind: Kind, parameters: [ParameterSpec] = []) {
        self.name = name
        self.aliases = aliases
        self.summary = summary
        self.kind = kind
        self.parameters = parameters
    }

    /// The parameter spec named `name`.
    public func parameter(_ name: String) -> ParameterSpec? {
        parameters.named(name)
    }
}

/// A built-in configuration provider.
public struct ProviderSpec: Sendable, Hashable {
    public var name: String
    public var aliases: [String]
    public var summary: String
    public var parameters: [ParameterSpec]
    /// The parameter a shorthand value (`file: config.json`) sets.
    public var primaryParameter: String?
    /// Inputs the provider may ask the person for.
    public var inputs: [String]

    public init(
        name: String, aliases: [String] = [], summary: String, parameters: [ParameterSpec] = [],
        primaryParameter: String? = nil,
        inputs: [String] = []
    ) {
        self.name = name
        self.aliases = aliases
        self.summary = summary
        self.parameters = parameters
        self.primaryParameter = primaryParameter
        self.inputs = inputs
    }

    /// The parameter spec named `name`.
    public func parameter(_ name: String) -> ParameterSpec? {
        parameters.named(name)
    }
}

/// An info key every flow may use without declaring it.
public struct BuiltinKey: Sendable, Hashable {
    public var name: String
    public var type: ValueType
    public var summary: String

    public init(name: String, type: ValueType, summary: String) {
        self.name = name
        self.type = type
        self.summary = summary
    }
}

/// A built-in record type such as `oauth2-parameters`.
public struct RecordSpec: Sendable, Hashable {
    public var name: String
    public var aliases: [String]
    public var summary: String
    public var fields: [ValueType.Field]
}
