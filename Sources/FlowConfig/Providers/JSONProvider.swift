import FlowCatalog
import FlowDescriptor
import FlowEngine

/// `json`: the document a person supplies with `--config FILE` (or `-` for standard input).
struct JSONProvider: ConfigurationProvider {
    static let spec = ProviderSpec(
        name: "json", aliases: ["JSONConfigurationProvider"],
        summary: "A document the person supplies with `--config FILE` (or `-` for standard input).")

    init() {}

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func load(_ context: StepContext) async -> ProviderAnswer {
        guard let node = context.input.document else { return .nothing("no document was given with --config") }
        return .found(node, source: "--config")
    }
}
