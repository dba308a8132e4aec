import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowVocabulary
import Foundation

/// `discovery-service`: looks the configuration up by email address or onboarding code, asked for through
/// the input source (flag, environment, prompt), under the AppConfigID `<application id>:<version>`.
struct DiscoveryServiceProvider: ConfigurationProvider {
    enum Input: String {
        case emailAddress = "email-address"
        case onboardingCode = "onboarding-code"
    }

    /// SAP's public discovery service, the SDK's default.
    static let defaultHost = "https://discovery.sapmobilesecure.com"

    static let spec = ProviderSpec(
        name: "discovery-service", aliases: ["DiscoveryServiceConfigurationProvider"],
        summary: "Looks the configuration up on the discovery service by email address or onboarding code.",
        parameters: [
            ParameterSpec(
                "application-id", .string, derived: "the flow's application.id",
                "The application whose configuration is looked up."),
            ParameterSpec("host", .url, default: defaultHost, "The discovery service."),
            ParameterSpec(
                "version", .string, default: "1.0",
                "The configuration version: the lookup asks for the AppConfigID `<application id>:<version>`."),
            ParameterSpec(
                "input", .oneOf(["email-address", "onboarding-code"]), default: "email-address",
                "What the person is asked for."),
        ],
        primaryParameter: "application-id", inputs: ["email-address", "onboarding-code"])

    let applicationID: String
    let version: String
    /// The flow's `application.version`, when the provider's `version` is left at its default and differs from
    /// it: a lookup that finds nothing then names the parameter.
    let differingApplicationVersion: String?
    let host: URL
    let input: Input

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        guard let application = try parameters.text("application-id") ?? parameters.flow.application?.id?.value else {
            throw ParameterProblem(
                "Provider `discovery-service` needs an application ID: set `application.id` or the provider's "
                    + "`application-id`.",
                at: parameters.location, path: parameters.path, missing: true)
        }
        applicationID = application
        version = try parameters.requiredText("version")
        let flowVersion = parameters.flow.application?.version?.value
        differingApplicationVersion =
            parameters.node("version") == nil && flowVersion != nil && flowVersion != version ? flowVersion : nil
        guard !version.isEmpty, !version.contains(where: { $0 == ":" || $0.isWhitespace }) else {
            throw ParameterProblem(
                "`version` `\(version)` of provider `discovery-service` is not a version such as `1.0`.",
                at: parameters.node("version")?.value.location ?? parameters.location, path: parameters.path)
        }
        let hostText = try parameters.requiredText("host")
        guard let url = URL(string: hostText), url.host != nil else {
            throw ParameterProblem(
                "`host` \(hostText) of provider `discovery-service` is not a URL.",
                at: parameters.node("host")?.value.location ?? parameters.location, path: parameters.path)
        }
        host = url
        input = try parameters.choice("input", as: Input.self) ?? .emailAddress
    }

    func load(_ context: StepContext) async -> ProviderAnswer {
        let value: String
        do throws(StepFailure) {
            value = try context.input.value(
                input.rawValue, question: input == .emailAddress ? "Email address: " : "Onboarding code: ")
        } catch {
            return error.code == .missingInput ? .needsInput(error.message) : .failed(error.message, transient: false)
        }
        let quoted = { (text: String) in text.replacingOccurrences(of: "'", with: "''") }
        let configID = appConfigID
        let function =
            input == .emailAddress
            ? "getApplicationConfiguration(AppConfigID='\(quoted(configID))',EmailAddress='\(quoted(value))')"
            : "getApplicationConfigurationByCode(AppConfigID='\(quoted(configID))',OnboardingCode='\(quoted(value))')"
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))
        guard let encoded = function.addingPercentEncoding(withAllowedCharacters: allowed),
            let url = URL(string: "/config-api.svc/ApplicationConfigurations/" + encoded, relativeTo: host)?.absoluteURL
        else { return .failed("cannot form the discovery URL", transient: false) }
        // The message names what was asked for, so a wrong application ID or version reads as such; the email
        // address keeps only its domain (the part discovery matches a tenant by), the code nothing.
        let asked =
            input == .emailAddress ? "the email address \(Self.masked(email: value))" : "the onboarding code given"
        let what = "discovery of AppConfigID `\(configID)` for \(asked)"
        return await ConfigurationFile.fetch(
            url, context: context, what: what,
            notFound: "the discovery service has no configuration `\(configID)` for \(asked)"
                + (differingApplicationVersion.map {
                    " (the provider asks for version `\(version)`, its `version` parameter's default, while the flow's "
                        + "application is version `\($0)`: set `version: \"\($0)\"` on the provider if that is the one)"
                } ?? ""))
    }

    /// The AppConfigID the lookup asks for: `com.example.travel:1.0`.
    var appConfigID: String { "\(applicationID):\(version)" }

    /// `ada@example.com` → `<redacted>@example.com`: the person's part stays out of messages and traces.
    static func masked(email: String) -> String {
        guard let at = email.lastIndex(of: "@") else { return Redactor.mask }
        return Redactor.mask + email[at...]
    }
}
