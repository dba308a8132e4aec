import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowHTTP
import Foundation

/// `url`: the configuration an onboarding link (`--link`) points at, accepted only from the allowed hosts, the
/// link's own and every redirect's: links can be forged to send people to a hostile backend.
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
        // Every hop is checked as the link is: a redirect must not carry the run off to a host nobody allowed.
        // Hosts are compared as the session sends them (under `--emulator` every host is the emulator's).
        let allowed = Set(allowedHosts + allowedHosts.compactMap { host in
            URL(string: "https://\(host)/").flatMap { context.http.rewritten($0).host?.lowercased() }
        })
        let hops = RedirectHops { _, target in
            target.host.map { allowed.contains($0.lowercased()) } == true ? .follow : .stop
        }
        let answer = await ConfigurationFile.fetch(link, context: context, what: "the onboarding link", hops: hops)
        if let refused = hops.refused {
            return .failed(
                "the link redirected to \(Self.withoutQuery(refused)), whose host \(refused.host ?? "(none)") is "
                    + "not in `allowed-hosts` (" + allowedHosts.joined(separator: ", ") + "); nothing from it was used",
                transient: false)
        }
        return answer
    }

    /// `url` without its query and fragment, which may carry codes.
    private static func withoutQuery(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.query = nil
        components?.fragment = nil
        return components?.string ?? url.absoluteString
    }
}
