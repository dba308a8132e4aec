import FlowCatalog
public import FlowDescriptor
public import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation

/// The SDK's configuration loader: providers are examined in order and the first that yields data wins; a
/// provider's error is noted in the trace and the next one is tried; when none yields data the load fails
/// with what each said.
public struct ConfigurationLoader: Sendable {
    public let providers: [any ConfigurationProvider]

    public init(providers: [any ConfigurationProvider]) {
        self.providers = providers
    }

    /// The first provider's document, and where it came from.
    /// - Throws: ``StepFailure`` `no-configuration` with what each provider said; transient when one failed
    ///   for a passing reason (a timeout, a 503), so that trying the queue again may help.
    public func load(_ context: StepContext) async throws(StepFailure) -> (document: Node, source: String) {
        var reports: [String] = []
        var transient = false
        var missingInput: (provider: String, message: String)?
        for provider in providers {
            let name = type(of: provider).spec.name
            switch await provider.load(context) {
            case .found(let node, let source):
                return (node, source)
            case .nothing(let reason):
                reports.append("\(name): \(reason)")
                context.note("provider-skipped", "\(name): \(reason)")
                context.log.write(.info, "welcome: provider \(name) has nothing: \(reason)")
            case .failed(let reason, let isTransient):
                transient = transient || isTransient
                reports.append("\(name): \(reason)")
                context.note("provider-failed", "\(name): \(reason)")
                context.log.write(.warn, "welcome: provider \(name) failed: \(reason)")
            case .needsInput(let reason):
                if missingInput == nil { missingInput = (name, reason) }
                context.note("provider-needs-input", "\(name): \(reason)")
                context.log.write(.warn, "welcome: provider \(name) needs input: \(reason)")
            }
        }
        // What the person can do something about comes first: the input they did not give.
        if let missingInput {
            let others = reports.isEmpty ? "" : "; the other providers: " + reports.joined(separator: "; ")
            throw StepFailure(
                .missingInput,
                "\(missingInput.message) (the `\(missingInput.provider)` provider asks for it\(others))")
        }
        throw StepFailure(
            .noConfiguration, "no provider yielded a configuration (" + reports.joined(separator: "; ") + ")",
            transient: transient)
    }
}
