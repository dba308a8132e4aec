import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `destinations-download` step: reads the destinations the application may use from the application's OData
/// `Endpoints` collection (`EndpointName`, `RemoteURL`; docs/contract.yaml gives the source) and provides them as
/// `destinations`, each a name and the URL an app reaches it at: the backend URL and the endpoint's name, where
/// Mobile Services proxies it; and its `RemoteURL`, the system behind (the iOS SDK's `Destination.remoteURL`),
/// shown for the record and never reached.
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

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let (base, applicationID) = try Backend.base(context)
        let url = try Backend.url(
            "/odata/applications/v4/\(Backend.segment(applicationID))/Endpoints", on: base, for: "the destinations")
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
    }

    /// An OData `Endpoints` answer (`{"d": {"results": [{"EndpointName": …}]}}`, or `{"value": […]}` of OData
    /// 4) as the `destinations` value: each endpoint's name, at the backend URL plus that name.
    static func read(_ answer: Node, base: URL, from url: URL) throws(StepFailure) -> Destinations {
        func bad(_ problem: String) -> StepFailure {
            StepFailure(.badResponse, "the destinations from \(url.absoluteString) cannot be read: \(problem)")
        }
        guard let elements = answer["d"]?["results"]?.elements ?? answer["value"]?.elements else {
            throw bad("expected the OData collection `d.results` (or `value`) of `Endpoints`")
        }
        let prefix = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        var entries: [DestinationRecord] = []
        var seen: Set<String> = []
        for (index, element) in elements.enumerated() {
            guard let name = element["EndpointName"]?.scalar?.text, !name.isEmpty else {
                throw bad("endpoint \(index) has no `EndpointName`")
            }
            guard let target = URL(string: prefix + "/" + Backend.segment(name)), target.host != nil
            else {
                throw bad("endpoint `\(name)` makes no URL on the backend")
            }
            guard seen.insert(name).inserted else { throw bad("endpoint `\(name)` is listed twice") }
            var fields: [String: InfoValue] = ["name": .string(name), "url": .url(target.absoluteString)]
            // The system behind, as the iOS SDK's `Destination.remoteURL` holds it: for the record, never reached.
            if let remote = element["RemoteURL"]?.scalar?.text, let remoteURL = URL(string: remote),
                remoteURL.scheme != nil, remoteURL.host != nil
            {
                fields["remoteURL"] = .url(remoteURL.absoluteString)
            }
            entries.append(DestinationRecord(fields))
        }
        return Destinations(entries)
    }
}
