import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary

/// The `welcome` step: finds the configuration through the provider queue, transforms it with the flow's
/// transform tree, provides the keys, and keeps the configuration for restore. On restore the kept
/// configuration is used instead of asking the providers again.
///
/// The providers and the transform tree are made when the flow compiles, from `configuration`.
struct WelcomeStep: BuiltinStep {
    static let spec = StepSpec(
        name: "welcome", aliases: ["WelcomeScreenStep", "WelcomeStep"],
        summary:
            "Loads the configuration through the provider queue, transforms it with the flow's transform tree and "
            + "provides its keys; restore reloads the persisted configuration.",
        provides: [KeySpec(.configuration)],
        waits: .person, providesTransformKeys: true)

    let loader: ConfigurationLoader
    let tree: TransformTree?
    let environment: TransformEnvironment
    /// Whether the configuration is kept for restore (`configuration.persist`, default `state`).
    let keepsConfiguration: Bool

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        let flow = parameters.flow
        loader = ConfigurationLoader(
            providers: try ProviderRegistry.builtin.providers(of: flow, catalog: parameters.catalog))
        do {
            tree = try TransformTree(descriptor: flow, catalog: parameters.catalog)
        } catch {
            throw ParameterProblem(
                error.message, at: error.location ?? flow.configuration?.location,
                path: DescriptorPath([.key("configuration"), .key("transform")]))
        }
        environment = TransformEnvironment(
            applicationID: flow.application?.id?.value, applicationVersion: flow.application?.version?.value)
        keepsConfiguration = flow.configuration?.persist?.value != PersistPolicy.none
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let (configuration, source) = try await loader.load(context)
        try apply(configuration, from: source, context: context)
        return .success
    }

    func restore(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self) else { return try await onboard(context) }
        let node = Node(
            json: kept.configuration, at: SourceLocation(file: "the kept configuration", line: 1, column: 1))
        try apply(node, from: "the state folder", context: context)
        return .success
    }

    /// What the step keeps: the configuration as the providers gave it, and which one gave it.
    struct Kept: Codable {
        var configuration: JSONValue
        var source: String
    }

    private func apply(_ configuration: Node, from source: String, context: StepContext) throws(StepFailure) {
        let json = JSONValue(node: configuration)
        var values = InfoEntries()
        values[.configuration] = InfoValue.from(json: json)
        if let tree {
            let result: TransformResult
            do {
                result = try tree.transform(configuration, environment: environment)
            } catch {
                throw StepFailure(.transform(error.kind), error.description)
            }
            values.values.merge(result.info) { $1 }
            if !result.unmatched.isEmpty {
                context.note(
                    "unmatched", "configuration keys no transformer reads: " + result.unmatched.joined(separator: ", "))
            }
            for note in result.notes {
                context.note("transform-note", note)
                context.log.write(.warn, "welcome: \(note)")
            }
            if !result.absent.isEmpty {
                context.note(
                    "absent",
                    "transformers whose source key the configuration lacks: " + result.absent.joined(separator: ", "))
            }
        }
        try context.provide(values)
        context.note("configuration", "configuration from \(source)")
        if keepsConfiguration {
            try context.keep(Kept(configuration: json, source: source))
        }
    }
}
