public import FlowCatalog
import FlowDescriptor

/// The steps a flow may use, by name and SDK alias, with the catalog that describes them.
///
/// Built from a list of ``BuiltinStep`` types; an app adds its own with ``register(_:make:)``. The catalog the
/// checker, the schema and `flowrun steps` read is this registry's: a step added here is known everywhere.
public struct StepRegistry: Sendable {
    /// Makes a step from its parameters when the flow compiles. The parameters are handed over, not lent: a step's
    /// initialiser takes them as its own, and a lent value would be copied whole on the way (every field counted).
    public typealias Factory = @Sendable (consuming BuiltinParameters) throws(ParameterProblem) -> any Step

    /// The catalog: `base`'s keys, records, transformers and providers, and the steps registered here.
    public private(set) var catalog: Catalog
    private var factories: [String: Factory] = [:]

    /// A registry with `base`'s tables and no steps.
    public init(catalog base: Catalog) {
        catalog = base
    }

    /// A registry of `steps` over `base`.
    public init(catalog base: Catalog, steps: [any BuiltinStep.Type]) {
        var catalog = base
        catalog.steps = steps.map { $0.catalogSpec }
        self.catalog = catalog
        for type in steps {
            factories[type.spec.name] = type.factory
        }
    }

    /// Adds a built-in step type.
    public mutating func register(_ type: any BuiltinStep.Type) {
        register(type.catalogSpec, make: type.factory)
    }

    /// Registers a custom step: its spec joins the catalog, its factory makes instances when the flow compiles.
    public mutating func register(_ spec: StepSpec, make factory: @escaping Factory) {
        catalog.steps.removeAll { $0.name == spec.name }
        catalog.steps.append(spec)
        factories[spec.name] = factory
    }

    /// The step `spec` describes, made from `parameters`; `nil` when no step of that name is registered.
    /// - Throws: ``ParameterProblem`` from the step's initialiser.
    public func make(
        _ spec: StepSpec, parameters: consuming BuiltinParameters
    ) throws(ParameterProblem) -> (any Step)? {
        guard let factory = factories[spec.name] else { return nil }
        return try factory(parameters)
    }
}

extension BuiltinStep {
    /// Makes the step from `parameters`, as a registry's factory.
    static var factory: StepRegistry.Factory {
        { (parameters: consuming BuiltinParameters) throws(ParameterProblem) in try Self(parameters) }
    }
}
