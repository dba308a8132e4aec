import FlowCatalog
import FlowDescriptor
import FlowEngine

/// `managed`: a document an administrator placed, found through an environment variable or a system path.
struct ManagedProvider: ConfigurationProvider {
    static let spec = ProviderSpec(
        name: "managed", aliases: ["ManagedConfigurationProvider"],
        summary: "A JSON document an administrator placed: the path in an environment variable, else a system path.",
        parameters: [
            ParameterSpec(
                "env", .string, default: "FLOWRUN_MANAGED_CONFIG",
                "The environment variable that holds the document's path."),
            ParameterSpec(
                "path", .string, default: "/etc/flowrun/managed/{application-id}.json",
                "The system path looked at when the variable is not set."),
        ],
        primaryParameter: "path")

    let variable: String
    let pathTemplate: String
    let applicationID: String

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        variable = try parameters.requiredText("env")
        pathTemplate = try parameters.requiredText("path")
        applicationID = parameters.flow.application?.id?.value ?? "application"
    }

    func load(_ context: StepContext) async -> ProviderAnswer {
        let path = pathTemplate.replacing("{application-id}", with: applicationID)
        if let path = context.input.environment[variable] { return ConfigurationFile.read(path) }
        guard FileBytes.exists(path) else { return .nothing("\(variable) is not set and \(path) does not exist") }
        return ConfigurationFile.read(path)
    }
}
