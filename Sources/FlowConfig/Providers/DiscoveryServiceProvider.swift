import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowHTTP
import Foundation

/// `discovery-service`: looks the configuration up by email address or onboarding code, asked for through
/// the input source (flag, environment, prompt).
struct DiscoveryServiceProvider: ConfigurationProvider {
    enum Input: String {
        case emailAddress = "email-address"
        case onboardingCode = "onboarding-code"
    }

    static let defaultHost = "https://discovery.sapmobileservices.com"

    static let spec = ProviderSpec(
        name: "discovery-service", aliases: ["DiscoveryServiceConfigurationProvider"],
        summary: "Looks the configuration up on the discovery service by email address or onboarding code.",
        parameters: [
            ParameterSpec(
                "application-id", .string, derived: "the flow's application.id",
                "The application whose configuration is looked up."),
            ParameterSpec("host", .url, default: defaultHost, "The discovery service."),
            ParameterSpec(
                "input", .oneOf(["email-address", "onboarding-code"]), default: "email-address",
                "What the person is asked for."),
        ],
        primaryParameter: "application-id", inputs: ["email-address", "onboarding-code"])

    let applicationID: String
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
        let function =
            input == .emailAddress
            ? "getApplicationConfiguration(AppConfigID='\(quoted(applicationID)):1.0',"
                + "EmailAddress='\(quoted(value))')"
            : "getApplicationConfigurationByCode(AppConfigID='\(quoted(applicationID)):1.0',"
                + "OnboardingCode='\(quoted(value))')"
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))
        guard let encoded = function.addingPercentEncoding(withAllowedCharacters: allowed),
            let url = URL(string: "/config-api.svc/ApplicationConfigurations/" + encoded, relativeTo: host)?.absoluteURL
        else { return .failed("cannot form the discovery URL", transient: false) }
        let what = "discovery for \(input == .emailAddress ? "this email address" : "this onboarding code")"
        return await ConfigurationFile.fetch(url, context: context, what: what)
    }
}
