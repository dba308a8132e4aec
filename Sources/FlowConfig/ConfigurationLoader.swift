import FlowCatalog
public import FlowDescriptor
public import FlowEngine
import FlowHTTP
public import Foundation

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

    /// With `--emulator`, a configuration's `host`, `port` and `protocol` point at the emulator, and so do the URLs
    /// in it on the backend's own origin (the OAuth 2.0, SAML and OTP endpoints of a backend that is its own
    /// authorization server). Applied each time the configuration is used, never to what is kept: a restore under
    /// another emulator port points at that one.
    public static func pointed(_ node: Node, at override: URL?) -> Node {
        guard let override, let pairs = node.pairs, node["host"] != nil, let host = override.host else { return node }
        let scheme = node["protocol"]?.scalar?.text ?? "https"
        let backendHost = node["host"]?.scalar?.text ?? ""
        let port = node["port"]?.scalar?.text ?? (scheme == "http" ? "80" : "443")
        let origin = URL(string: "\(scheme)://\(backendHost):\(port)")?.origin
        var replaced = pairs.filter { !["host", "port", "protocol"].contains($0.key.scalar?.text ?? "") }
        if let origin {
            replaced = replaced.map { Pair(key: $0.key, value: repointed($0.value, from: origin, to: override)) }
        }
        func scalar(_ text: String, quoted: Bool) -> Node {
            Node(.scalar(Scalar(text, style: quoted ? .doubleQuoted : .plain)), at: node.location)
        }
        replaced.append(Pair(key: scalar("host", quoted: true), value: scalar(host, quoted: true)))
        replaced.append(
            Pair(key: scalar("port", quoted: true), value: scalar(String(override.port ?? 443), quoted: false)))
        replaced.append(
            Pair(key: scalar("protocol", quoted: true), value: scalar(override.scheme ?? "https", quoted: true)))
        return Node(.mapping(replaced), at: node.location)
    }

    /// `node` with every URL on `origin` pointed at `override`.
    private static func repointed(_ node: Node, from origin: String, to override: URL) -> Node {
        switch node.content {
        case .scalar(let scalar):
            guard let url = URL(string: scalar.text), url.scheme == "http" || url.scheme == "https",
                url.origin == origin
            else { return node }
            var copy = node
            copy.content = .scalar(Scalar(Backend.redirect(url, to: override).absoluteString, style: scalar.style))
            return copy
        case .sequence(let elements):
            var copy = node
            copy.content = .sequence(elements.map { repointed($0, from: origin, to: override) })
            return copy
        case .mapping(let pairs):
            var copy = node
            copy.content = .mapping(
                pairs.map { Pair(key: $0.key, value: repointed($0.value, from: origin, to: override)) })
            return copy
        }
    }
}
