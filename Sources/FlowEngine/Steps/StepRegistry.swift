public import FlowCatalog
import FlowDescriptor

/// Binds step names to implementations, beside the catalog that describes them.
///
/// The built-in steps are registered by name; an app registers its own with ``register(_:make:)`` and a
/// ``StepSpec`` that says what the step requires and provides, so the checker and the graph compiler treat it
/// like a built-in. (The SDK's two modes become: this library API, and the flow file.)
public struct StepRegistry: Sendable {
    /// Makes a step for one node of a graph.
    public typealias Factory = @Sendable (StepNode) throws(StepFailure) -> any Step

    public private(set) var catalog: Catalog
    private var factories: [String: Factory] = [:]

    /// The built-in steps this build implements.
    public static var builtin: StepRegistry {
        var registry = StepRegistry(catalog: .builtin)
        registry.bind("command") { node throws(StepFailure) in try CommandStep(node: node) }
        registry.bind("welcome") { _ in WelcomeStep() }
        registry.bind("session-configuration") { _ in SessionConfigurationStep() }
        registry.bind("settings-download") { _ in SettingsDownloadStep() }
        return registry
    }

    /// Every catalog step counts as implemented, with no implementation: for drawing and planning only.
    public static var catalogOnly: StepRegistry {
        var registry = StepRegistry(catalog: .builtin)
        for step in registry.catalog.steps {
            registry.bind(step.name) { node throws(StepFailure) in
                throw StepFailure("not-implemented", "step `\(node.name)` cannot run from a catalog-only registry")
            }
        }
        return registry
    }

    public init(catalog: Catalog) {
        self.catalog = catalog
    }

    /// Registers a custom step: its spec joins the catalog, its factory makes instances.
    public mutating func register(_ spec: StepSpec, make factory: @escaping Factory) {
        catalog.steps.removeAll { $0.name == spec.name }
        catalog.steps.append(spec)
        factories[spec.name] = factory
    }

    /// Binds an implementation to a step the catalog already describes.
    public mutating func bind(_ name: String, make factory: @escaping Factory) {
        factories[name] = factory
    }

    /// Whether `name` (a catalog name) has an implementation in this build.
    public func isImplemented(_ name: String) -> Bool { factories[name] != nil }

    /// A step for `node`.
    /// - Throws: ``StepFailure`` `not-implemented` when this build has no implementation for the step.
    public func make(_ node: StepNode) throws(StepFailure) -> any Step {
        guard let factory = factories[node.spec.name] else {
            throw StepFailure("not-implemented", "step `\(node.name)` uses `\(node.spec.name)`, which this build of flowrun does not implement yet")
        }
        return try factory(node)
    }
}
