import Foundation
import FlowDescriptor
import FlowHTTP
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
            let (configuration, source) = try await load(context)
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
    private func load(_ context: StepContext) async throws(StepFailure) -> (Node, String) {
        var providers = context.providers.map { ($0.name.value, $0.parameters) }
        if providers.isEmpty { providers = [("json", [])] }
        var reports: [String] = []
        var transient = false
        for (name, parameters) in providers {
            switch await ConfigurationProviders.load(name, parameters: parameters, context: context) {
            case .found(let node, let source):
                return (ConfigurationProviders.pointed(node, at: context.backendOverride), source)
            case .nothing(let reason):
                reports.append("\(name): \(reason)")
                context.note("provider-skipped", "\(name): \(reason)")
                context.log.write(.info, "welcome: provider \(name) has nothing: \(reason)")
            case .failed(let reason, let isTransient):
                transient = transient || isTransient
                reports.append("\(name): \(reason)")
                context.note("provider-failed", "\(name): \(reason)")
                context.log.write(.warn, "welcome: provider \(name) failed: \(reason)")
            }
        }
        // When a provider failed for a passing reason (a timeout, a 503), trying the queue again may help.
        throw StepFailure("no-configuration", "no provider yielded a configuration (" + reports.joined(separator: "; ") + ")", transient: transient)
    }
}

/// The configuration providers: `json` (`--config`), `file` (JSON or property list), `managed`,
/// `discovery-service` and `url`.
enum ConfigurationProviders {
    enum Answer {
        case found(Node, source: String)
        /// The provider has no data (not an error; the next one is asked).
        case nothing(String)
        case failed(String, transient: Bool)
    }

    static func load(_ name: String, parameters: [Parameter], context: StepContext) async -> Answer {
        func parameter(_ key: String) -> String? {
            parameters.first { $0.name.value == key || ($0.name.value.isEmpty && key == "path") }?.value.scalar?.text
        }
        switch canonical(name) {
        case "json":
            guard let node = context.suppliedConfiguration else { return .nothing("no document was given with --config") }
            return .found(node, source: "--config")
        case "file":
            guard let path = parameter("path") else { return .failed("no `path`", transient: false) }
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : context.flowFolder.appendingPathComponent(path)
            // As in the SDK, a file that is not there is a provider with nothing to offer (it is often put in
            // place when the app is deployed); a file that is there but cannot be read is an error.
            guard FileBytes.exists(url.path) else { return .nothing("\(url.path) does not exist") }
            return read(url.path)
        case "managed":
            let variable = parameter("env") ?? "FLOWRUN_MANAGED_CONFIG"
            if let path = context.input.environment[variable] { return read(path) }
            let application = context.transformEnvironment.applicationID ?? "application"
            let path = (parameter("path") ?? "/etc/flowrun/managed/{application-id}.json").replacing("{application-id}", with: application)
            guard FileBytes.exists(path) else { return .nothing("\(variable) is not set and \(path) does not exist") }
            return read(path)
        case "discovery-service":
            return await discovery(parameters: parameter, context: context)
        case "url":
            return await link(parameters: parameters, context: context)
        default:
            return .failed("`\(name)` is not a configuration provider", transient: false)
        }
    }

    static let defaultDiscoveryHost = "https://discovery.sapmobileservices.com"

    /// Looks the configuration up on the discovery service by email address or onboarding code (asked for
    /// through the input source: flag, environment, prompt).
    private static func discovery(parameters: (String) -> String?, context: StepContext) async -> Answer {
        guard let application = parameters("application-id") ?? context.transformEnvironment.applicationID else {
            return .failed("no application ID: set `application.id` or the provider's `application-id`", transient: false)
        }
        let hostText = parameters("host") ?? defaultDiscoveryHost
        guard let configured = URL(string: hostText), configured.host != nil else {
            return .failed("`host` \(hostText) is not a URL", transient: false)
        }
        let host = Backend.redirect(configured, to: context.backendOverride)
        let input = parameters("input") ?? "email-address"
        let value: String
        do throws(StepFailure) {
            value = try context.input.value(input, question: input == "email-address" ? "Email address: " : "Onboarding code: ")
        } catch {
            return .failed(error.message, transient: false)
        }
        let quoted = { (text: String) in text.replacingOccurrences(of: "'", with: "''") }
        let function = input == "email-address"
            ? "getApplicationConfiguration(AppConfigID='\(quoted(application)):1.0',EmailAddress='\(quoted(value))')"
            : "getApplicationConfigurationByCode(AppConfigID='\(quoted(application)):1.0',OnboardingCode='\(quoted(value))')"
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))
        guard let encoded = function.addingPercentEncoding(withAllowedCharacters: allowed),
              let url = URL(string: "/config-api.svc/ApplicationConfigurations/" + encoded, relativeTo: host)?.absoluteURL
        else { return .failed("cannot form the discovery URL", transient: false) }
        return await fetch(url, context: context, what: "discovery for \(input == "email-address" ? "this email address" : "this onboarding code")")
    }

    /// The configuration an onboarding link (`--link`) points at, accepted only from the allowed hosts: links
    /// can be forged to send people to a hostile backend.
    private static func link(parameters: [Parameter], context: StepContext) async -> Answer {
        guard let link = context.link else { return .nothing("no link was given with --link") }
        let allowed = parameters.first { $0.name.value == "allowed-hosts" }?.value.elements?.compactMap { $0.scalar?.text.lowercased() } ?? []
        guard let host = link.host?.lowercased(), allowed.contains(host) else {
            return .failed("the link's host \(link.host ?? "(none)") is not in `allowed-hosts` (" + allowed.joined(separator: ", ") + ")", transient: false)
        }
        return await fetch(Backend.redirect(link, to: context.backendOverride), context: context, what: "the onboarding link")
    }

    private static func fetch(_ url: URL, context: StepContext, what: String) async -> Answer {
        do throws(StepFailure) {
            let response = try await Backend.fetch(HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context, what: what)
            return .found(try Backend.json(response, what: what), source: url.absoluteString)
        } catch {
            if error.code == "http-404" { return .nothing("\(what): not found") }
            return .failed(error.message, transient: error.isTransient)
        }
    }

    /// With `--emulator`, a configuration's `host`, `port` and `protocol` point at the emulator.
    static func pointed(_ node: Node, at override: URL?) -> Node {
        guard let override, let pairs = node.pairs, node["host"] != nil, let host = override.host else { return node }
        var replaced = pairs.filter { !["host", "port", "protocol"].contains($0.key.scalar?.text ?? "") }
        func scalar(_ text: String, quoted: Bool) -> Node {
            Node(.scalar(Scalar(text, style: quoted ? .doubleQuoted : .plain)), at: node.location)
        }
        replaced.append(Pair(key: scalar("host", quoted: true), value: scalar(host, quoted: true)))
        replaced.append(Pair(key: scalar("port", quoted: true), value: scalar(String(override.port ?? 443), quoted: false)))
        replaced.append(Pair(key: scalar("protocol", quoted: true), value: scalar(override.scheme ?? "https", quoted: true)))
        return Node(.mapping(replaced), at: node.location)
    }

    private static func canonical(_ name: String) -> String {
        switch name {
        case "JSONConfigurationProvider": "json"
        case "DiscoveryServiceConfigurationProvider": "discovery-service"
        case "URLConfigurationProvider": "url"
        case "FileConfigurationProvider": "file"
        case "ManagedConfigurationProvider": "managed"
        default: name
        }
    }

    private static func read(_ path: String) -> Answer {
        if path.lowercased().hasSuffix(".plist") { return readPropertyList(path) }
        let result = DocumentReader.read(path: path)
        guard let root = result.root, result.diagnostics.isEmpty else {
            let problem = result.diagnostics.first.map { "\($0.location.map { "\($0): " } ?? "")\($0.message)" } ?? "unreadable"
            return .failed(problem, transient: false)
        }
        guard root.pairs != nil else { return .failed("\(path): the document is not a JSON object", transient: false) }
        return .found(root, source: path)
    }

    /// A property list (`ConfigurationProvider.plist` of assistant-generated apps), XML or binary, read with
    /// Foundation and turned into the same tree as JSON (a property list has no line numbers to keep).
    private static func readPropertyList(_ path: String) -> Answer {
        guard let data = FileManager.default.contents(atPath: path) else { return .failed("\(path): cannot be read", transient: false) }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            return .failed("\(path): not a property list: \(error.localizedDescription)", transient: false)
        }
        guard let dictionary = object as? [String: Any] else { return .failed("\(path): the property list is not a dictionary", transient: false) }
        let text = propertyListJSON(dictionary).rendered(pretty: false)
        guard let root = DocumentReader.read(bytes: Array(text.utf8), file: path, format: .json).root else {
            return .failed("\(path): cannot be converted", transient: false)
        }
        return .found(root, source: path)
    }

    private static func propertyListJSON(_ value: Any) -> JSONValue {
        switch value {
        case let text as String: return .string(text)
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let number as Int: return .int(number)
        case let number as Double: return number == number.rounded() && abs(number) < 1e15 ? .int(Int(number)) : .double(number)
        case let array as [Any]: return .array(array.map(propertyListJSON))
        case let dictionary as [String: Any]: return .object(dictionary.keys.sorted().map { ($0, propertyListJSON(dictionary[$0]!)) })
        case let date as Date: return .string(date.ISO8601Format())
        case let data as Data: return .string(data.base64EncodedString())
        default: return .string("\(value)")
        }
    }
}
