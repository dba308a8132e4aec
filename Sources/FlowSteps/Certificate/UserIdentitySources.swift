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
        case .mobileServices: NotBuiltIdentitySource(name: rawValue)
        case .sls: NotBuiltIdentitySource(name: rawValue)
        }
    }
}

/// A source this build names but cannot run yet: obtaining fails with `identity-source-failed`.
struct NotBuiltIdentitySource: UserIdentitySource {
    let name: String

    func obtain(_ context: StepContext) async throws(StepFailure) -> UserIdentity {
        throw StepFailure(
            .identitySourceFailed, "the `\(name)` identity source is not built yet in this build of flowrun")
    }
}
