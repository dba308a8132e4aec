import FlowCatalog
import FlowDescriptor
import FlowEngine
import Foundation

/// `url`: the configuration an onboarding link (`--link`) points at, accepted only from the allowed hosts:
/// links can be forged to send people to a hostile backend.
struct URLProvider: ConfigurationProvider {
    static let spec = ProviderSpec(
        name: "url", aliases: ["URLConfigurationProvider"],
        summary: "An onboarding link passed with `--link URL`, accepted only from allowed hosts.",
        parameters: [
            ParameterSpec(
                "allowed-hosts", .stringList,
                "Hosts whose links are accepted; links can be forged to phish users, so list them.")
        ],
        inputs: ["link"])

    let allowedHosts: [String]

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        allowedHosts = try parameters.textList("allowed-hosts").map { $0.lowercased() }
    }

    func load(_ context: StepContext) async -> ProviderAnswer {
        guard let link = context.input.link else { return .nothing("no link was given with --link") }
        guard let host = link.host?.lowercased(), allowedHosts.contains(host) else {
            return .failed(
                "the link's host \(link.host ?? "(none)") is not in `allowed-hosts` ("
                    + allowedHosts.joined(separator: ", ") + ")",
                transient: false)
        }
        return await ConfigurationFile.fetch(link, context: context, what: "the onboarding link")
    }
}
