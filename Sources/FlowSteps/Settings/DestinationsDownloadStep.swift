import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import Foundation

/// The `destinations-download` step: reads the destinations the application may use from the backend (I) and
/// provides them as `destinations`, each a name and its URL. A relative URL is made absolute against the backend.
///
/// A step of its own rather than a parameter of `settings-download`: it is another service with its own answer
/// and failures, a flow that uses no destination does not pay for the request, and the settings' restore (kept
/// settings when the download fails) stays about settings.
struct DestinationsDownloadStep: BuiltinStep {
    static let spec = StepSpec(
        name: "destinations-download",
        summary: "Downloads the destinations the application may use and provides them as `destinations`.",
        parameters: [],
        requires: [KeySpec(.settingsParameters)],
        provides: [KeySpec(.destinations)],
        waits: .server)

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async -> StepOutcome {
        do throws(StepFailure) {
            let (base, applicationID) = try Backend.base(context)
            let path =
                "/mobileservices/application/\(applicationID)/destinations/v1/runtime/application/\(applicationID)"
            guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
                throw StepFailure(.badParameter, "cannot form the destinations URL from \(base.absoluteString)")
            }
            let what = "downloading the destinations"
            let response = try await Backend.fetch(
                HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: what)
            let destinations = try Self.read(try Backend.json(response, what: what), base: base, from: url)
            try context.provide(.destinations, destinations)
            let names = destinations.entries.compactMap { $0.text("name") }
            context.note(
                "destinations",
                names.isEmpty ? "the backend lists no destinations" : "destinations: \(names.joined(separator: ", "))")
            return .success
        } catch {
            return Task.isCancelled ? .cancelled : .failure(error)
        }
    }

    /// `{"destinations": [{"name": …, "url": …}]}` as the `destinations` value.
    static func read(_ answer: Node, base: URL, from url: URL) throws(StepFailure) -> Destinations {
        func bad(_ problem: String) -> StepFailure {
            StepFailure(.badResponse, "the destinations from \(url.absoluteString) cannot be read: \(problem)")
        }
        guard let elements = answer["destinations"]?.elements else {
            throw bad("expected a list under `destinations`")
        }
        var entries: [DestinationRecord] = []
        var seen: Set<String> = []
        for (index, element) in elements.enumerated() {
            guard let name = element["name"]?.scalar?.text, !name.isEmpty else {
                throw bad("`destinations[\(index)]` has no `name`")
            }
            guard let text = element["url"]?.scalar?.text, let target = URL(string: text, relativeTo: base),
                target.absoluteURL.scheme != nil, target.absoluteURL.host != nil
            else {
                throw bad("`destinations[\(index)].url` (destination `\(name)`) is not a URL")
            }
            guard seen.insert(name).inserted else { throw bad("destination `\(name)` is listed twice") }
            entries.append(DestinationRecord(["name": .string(name), "url": .url(target.absoluteURL.absoluteString)]))
        }
        return Destinations(entries)
    }
}
