import Foundation
public import FlowDescriptor
import FlowTransform

/// The `welcome` step: finds the configuration through the provider queue, transforms it with the flow's
/// transform tree, provides the keys, and keeps the configuration for restore.
///
/// The loader follows the SDK's: providers are examined in order and the first that yields data wins; a
/// provider's error is noted in the trace and the next one is tried; when none yields data the step fails with
/// what each said. On restore the kept configuration is used instead of asking the providers again.
struct WelcomeStep: Step {
    func onboard(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            let (configuration, source) = try load(context)
            try apply(configuration, from: source, context: context)
            return .success
        } catch {
            return .failure(error)
        }
    }

    func restore(_ context: StepContext) async -> StepOutcome {
        guard let kept = context.persisted?["configuration"] else { return await onboard(context) }
        do throws(StepFailure) {
            let text = kept.rendered(pretty: false)
            let read = DocumentReader.read(bytes: Array(text.utf8), file: "the kept configuration", format: .json)
            guard let node = read.root else { throw StepFailure("state-unreadable", "the kept configuration cannot be read") }
            try apply(node, from: "the state folder", context: context)
            return .success
        } catch {
            return .failure(error)
        }
    }

    private func apply(_ configuration: Node, from source: String, context: StepContext) throws(StepFailure) {
        var values: [String: InfoValue] = ["configuration": InfoValue(node: configuration)]
        if let tree = context.transformTree {
            let result: TransformResult
            do {
                result = try tree.transform(configuration, environment: context.transformEnvironment)
            } catch {
                throw StepFailure("transform-\(error.kind.rawValue)", error.description)
            }
            values.merge(result.info) { $1 }
            if !result.unmatched.isEmpty {
                context.note("unmatched", "configuration keys no transformer reads: " + result.unmatched.joined(separator: ", "))
            }
            if !result.absent.isEmpty {
                context.note("absent", "transformers whose source key the configuration lacks: " + result.absent.joined(separator: ", "))
            }
        }
        try context.provide(values)
        context.note("configuration", "configuration from \(source)")
        if context.persistConfiguration {
            context.persist(.object([("configuration", JSONValue(node: configuration)), ("source", .string(source))]))
        }
    }

    /// The first provider's document, and where it came from.
    private func load(_ context: StepContext) throws(StepFailure) -> (Node, String) {
        var providers = context.providers.map { ($0.name.value, $0.parameters) }
        if providers.isEmpty { providers = [("json", [])] }
        var reports: [String] = []
        for (name, parameters) in providers {
            switch ConfigurationProviders.load(name, parameters: parameters, context: context) {
            case .found(let node, let source):
                return (node, source)
            case .nothing(let reason), .failed(let reason):
                reports.append("\(name): \(reason)")
                context.note("provider-skipped", "\(name): \(reason)")
            }
        }
        throw StepFailure("no-configuration", "no provider yielded a configuration (" + reports.joined(separator: "; ") + ")")
    }
}

/// The configuration providers this build reads without a network: `json` (`--config`), `file` and `managed`.
enum ConfigurationProviders {
    enum Answer {
        case found(Node, source: String)
        /// The provider has no data (not an error; the next one is asked).
        case nothing(String)
        case failed(String)
    }

    static func load(_ name: String, parameters: [Parameter], context: StepContext) -> Answer {
        func parameter(_ key: String) -> String? {
            parameters.first { $0.name.value == key || ($0.name.value.isEmpty && key == "path") }?.value.scalar?.text
        }
        switch canonical(name) {
        case "json":
            guard let node = context.suppliedConfiguration else { return .nothing("no document was given with --config") }
            return .found(node, source: "--config")
        case "file":
            guard let path = parameter("path") else { return .failed("no `path`") }
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : context.flowFolder.appendingPathComponent(path)
            return read(url.path)
        case "managed":
            let variable = parameter("env") ?? "FLOWRUN_MANAGED_CONFIG"
            if let path = context.input.environment[variable] { return read(path) }
            let application = context.transformEnvironment.applicationID ?? "application"
            let path = (parameter("path") ?? "/etc/flowrun/managed/{application-id}.json").replacing("{application-id}", with: application)
            guard FileManager.default.fileExists(atPath: path) else { return .nothing("\(variable) is not set and \(path) does not exist") }
            return read(path)
        default:
            return .failed("this build of flowrun cannot use the `\(name)` provider yet (it needs the network)")
        }
    }

    private static func canonical(_ name: String) -> String {
        switch name {
        case "JSONConfigurationProvider": "json"
        case "FileConfigurationProvider": "file"
        case "ManagedConfigurationProvider": "managed"
        default: name
        }
    }

    private static func read(_ path: String) -> Answer {
        guard path.lowercased().hasSuffix(".json") else {
            return .failed("\(path): only JSON documents are read in this build")
        }
        let result = DocumentReader.read(path: path)
        guard let root = result.root, result.diagnostics.isEmpty else {
            let problem = result.diagnostics.first.map { "\($0.location.map { "\($0): " } ?? "")\($0.message)" } ?? "unreadable"
            return .failed(problem)
        }
        guard root.pairs != nil else { return .failed("\(path): the document is not a JSON object") }
        return .found(root, source: path)
    }
}
