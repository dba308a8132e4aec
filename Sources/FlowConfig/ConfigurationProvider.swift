public import FlowCatalog
public import FlowDescriptor
public import FlowEngine

/// What a configuration provider found.
public enum ProviderAnswer: Sendable {
    /// A document, and where it came from (for the trace).
    case found(Node, source: String)
    /// The provider has no data; not an error: the next provider is asked (as in the SDK).
    case nothing(String)
    /// The provider failed; `transient` when asking again may help (a timeout, a 503).
    case failed(String, transient: Bool)
    /// The provider needs an input the person has not given (and cannot be asked for): the message says which
    /// and how to give it.
    case needsInput(String)
}

/// A source of the configuration document, examined in the order of `configuration.providers`. The SDK's
/// `ConfigurationProviding`.
///
/// Each describes itself and is made from its parameters when the flow compiles, so a bad parameter is a
/// located finding before anything runs; `load` runs when the `welcome` step asks.
public protocol ConfigurationProvider: Sendable {
    /// The provider's description, from which the catalog is made.
    static var spec: ProviderSpec { get }
    /// Makes the provider from the flow's parameters (a shorthand value sets ``ProviderSpec/primaryParameter``).
    /// - Throws: ``ParameterProblem`` at the value that cannot be used.
    init(_ parameters: BuiltinParameters) throws(ParameterProblem)
    /// Looks for the document; the context gives the input source, the HTTP session and the log.
    func load(_ context: StepContext) async -> ProviderAnswer
}

/// The configuration providers by name and SDK alias. The catalog's provider table is made from it.
public struct ProviderRegistry: Sendable {
    private var types: [String: any ConfigurationProvider.Type] = [:]
    private var order: [any ConfigurationProvider.Type] = []

    public init(_ providers: [any ConfigurationProvider.Type]) {
        for type in providers { register(type) }
    }

    /// Adds a provider under its name and aliases.
    public mutating func register(_ type: any ConfigurationProvider.Type) {
        order.append(type)
        for name in [type.spec.name] + type.spec.aliases { types[name] = type }
    }

    /// Every provider's description, in registration order.
    public var specs: [ProviderSpec] { order.map { $0.spec } }

    /// The provider named `name` or with that alias.
    public func provider(named name: String) -> (any ConfigurationProvider.Type)? { types[name] }

    /// The SDK's queue when a flow names no providers: managed, file, discovery service, JSON.
    public static let defaultQueue: [any ConfigurationProvider.Type] = [
        ManagedProvider.self, FileProvider.self, DiscoveryServiceProvider.self, JSONProvider.self,
    ]

    /// The providers of `flow`'s `configuration.providers`, made from their parameters; the SDK's
    /// ``defaultQueue`` with default parameters when the flow names none (without the discovery service when the
    /// flow has no application ID to look up).
    /// - Throws: ``ParameterProblem`` for a provider that is not known or cannot be made.
    public func providers(
        of flow: FlowDescriptor, catalog: Catalog
    ) throws(ParameterProblem) -> [any ConfigurationProvider] {
        let entries = flow.configuration?.providers ?? []
        guard !entries.isEmpty else { return Self.defaults(of: flow, catalog: catalog) }
        var made: [any ConfigurationProvider] = []
        made.reserveCapacity(entries.count)
        for entry in entries {
            guard let type = provider(named: entry.name.value) else {
                throw ParameterProblem(
                    "`\(entry.name.value)` is not a configuration provider.", at: entry.name.location, path: entry.path)
            }
            let spec = type.spec
            // A shorthand (`file: config.json`) is decoded as a parameter with no name: it sets the primary one.
            var parameters = entry.parameters
            if let primary = spec.primaryParameter {
                for position in parameters.indices where parameters[position].name.value.isEmpty {
                    parameters[position].name = Located(primary, at: parameters[position].name.location)
                }
            }
            made.append(
                try type.init(
                    BuiltinParameters(
                        kind: "provider", named: spec.name, specs: spec.parameters, entries: parameters,
                        location: entry.name.location, path: entry.path, flow: flow, catalog: catalog)))
        }
        return made
    }

    private static func defaults(of flow: FlowDescriptor, catalog: Catalog) -> [any ConfigurationProvider] {
        let location = flow.configuration?.location ?? SourceLocation(file: flow.file, line: 1, column: 1)
        let path = DescriptorPath.root.appending("configuration").appending("providers")
        return defaultQueue.compactMap { type in
            try? type.init(
                BuiltinParameters(
                    kind: "provider", named: type.spec.name, specs: type.spec.parameters, entries: [],
                    location: location, path: path, flow: flow, catalog: catalog))
        }
    }

    /// flowrun's built-in providers.
    public static let builtin = ProviderRegistry([
        ManagedProvider.self, FileProvider.self, DiscoveryServiceProvider.self, JSONProvider.self, URLProvider.self,
    ])
}
