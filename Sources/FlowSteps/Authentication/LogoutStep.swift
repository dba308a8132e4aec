import FlowAuth
import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `logout` step: logs the run's session out where a flow says so. Revokes the tokens of the session's
/// OAuth 2.0 logins where the server offers revocation, ends the backend's session
/// (`POST /mobileservices/sessions/logout` with its cookies), and removes the session's authenticators. The
/// tokens an authentication step kept are revoked with it, so the next start logs in again.
struct LogoutStep: BuiltinStep {
    static let spec = StepSpec(
        name: "logout", aliases: ["LogoutStep"],
        summary:
            "Ends the backend session, revokes the session's OAuth 2.0 tokens where offered and removes its "
            + "authenticators.",
        parameters: [],
        requires: [KeySpec(.settingsParameters)],
        provides: [],
        waits: .server)

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {}

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let (backend, _) = try Backend.base(context)
        var authorization: String?
        for case let authenticator as OAuth2Authenticator in context.http.authenticators(.oauth2)
        where authenticator.origin == backend.origin {
            if let tokens = authenticator.tokens { authorization = "Bearer \(tokens.accessToken.revealed)" }
            do {
                try await authenticator.revoke(transport: context.http.transport)
            } catch {
                throw Authentication.failure(error, what: "revoking the tokens")
            }
        }
        for case let authenticator as BasicAuthenticator in context.http.authenticators(.basic)
        where authenticator.origin == backend.origin {
            if let credentials = authenticator.current {
                let pair = "\(credentials.username):\(credentials.password.revealed)"
                authorization = "Basic " + Data(pair.utf8).base64EncodedString()
            }
            authenticator.forget()
        }
        try await Authentication.endSession(backend: backend, authorization: authorization, context: context)
        for method in context.http.authenticatorMethods {
            context.http.removeAuthenticators(method, origin: backend.origin)
        }
        return .success
    }
}
