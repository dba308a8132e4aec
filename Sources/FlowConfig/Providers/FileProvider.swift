import FlowCatalog
import FlowDescriptor
import FlowEngine
import Foundation

/// `file`: a JSON or property-list file, relative to the flow file.
struct FileProvider: ConfigurationProvider {
    /// The SDK's file provider reads `ConfigurationProvider.plist` unless told another name.
    static let defaultPath = "ConfigurationProvider.plist"

    static let spec = ProviderSpec(
        name: "file", aliases: ["FileConfigurationProvider"],
        summary: "A JSON or property-list file (`ConfigurationProvider.plist` format), relative to the flow file.",
        parameters: [
            ParameterSpec(
                "path", .string, default: defaultPath,
                "The file, relative to the flow file; the SDK's file name when not given.")
        ],
        primaryParameter: "path")

    let path: String
    let flowFile: String

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        path = try parameters.requiredText("path")
        flowFile = parameters.flow.file
    }

    func load(_ context: StepContext) async -> ProviderAnswer {
        let url =
            path.hasPrefix("/")
            ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: flowFile).deletingLastPathComponent().appendingPathComponent(path)
        // As in the SDK, a file that is not there is a provider with nothing to offer (it is often put in
        // place when the app is deployed); a file that is there but cannot be read is an error.
        guard FileBytes.exists(url.path) else { return .nothing("\(url.path) does not exist") }
        return ConfigurationFile.read(url.path)
    }
}
