import FlowCatalog
import FlowEngine

/// The identity sources a certificate step picks from by its `source` parameter: a closed set, one case each.
enum UserIdentitySourceName: String, CaseIterable, Sendable {
    /// A PKCS#12 file and its password.
    case pkcs12
    /// The mobile services certificate service: a key made here, a CSR sent, the issued chain back.
    case mobileServices = "mobile-services"
    /// A Secure Login Server: its own login, then a CSR sent, the issued chain back.
    case sls

    static var names: [String] { allCases.map(\.rawValue) }

    /// The source of this name, made from the step's parameters.
    /// - Throws: ``ParameterProblem`` at the parameter the source cannot use.
    func source(parameters: BuiltinParameters) throws(ParameterProblem) -> any UserIdentitySource {
        switch self {
        case .pkcs12: try PKCS12IdentitySource(parameters)
        case .mobileServices:
            MobileServicesIdentitySource(
                endpoints: MobileServicesIdentitySource.Endpoints(
                    attributes: try parameters.text("attributes-endpoint"),
                    request: try parameters.text("request-endpoint"), retire: try parameters.text("retire-endpoint")),
                parametersKey: "userIdentityParameters")
        case .sls:
            SLSIdentitySource(
                server: try parameters.text("sls-url"), profile: try parameters.text("profile") ?? "default",
                inputs: Dictionary(try parameters.textMapping("inputs"), uniquingKeysWith: { $1 }))
        }
    }
}
