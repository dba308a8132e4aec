import FlowAuth
import FlowCatalog
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Synchronization

/// The `basic-authentication` step, the SDK's `BasicAuthenticationStep`: answers the backend's Basic challenge
/// with a user name and password from the inputs, proves them with the validating request, and keeps them in the
/// encrypted store so that a restore does not ask again.
struct BasicAuthenticationStep: BuiltinStep, KeptLoginStep, LoggingOutStep {
    static let spec = StepSpec(
        name: "basic-authentication", aliases: ["BasicAuthenticationStep"],
        summary: "Authenticates with HTTP Basic credentials, proved by the validating request and kept in the store.",
        parameters: [
            ParameterSpec("username", .string, default: "${input.username}", "The user name."),
            ParameterSpec(
                "password", .secret, default: ValueReference.prompt,
                "The password: `${env.NAME}`, `${input.NAME}` or `prompt` (input `password`)."),
            Authentication.validatingPath,
        ] + Authentication.challengeParameters,
        requires: [KeySpec(.authenticationURL)],
        provides: [KeySpec(.userID, optional: true)],
        waits: .person, authenticates: [.basic])

    let username: ParameterText
    let password: ParameterText
    let validatingPath: String?
    let challenges: [ChallengeTest]

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        username =
            try parameters.runtimeText("username")
            ?? ParameterText(parameter: "username", text: "${input.username}", isSecret: false)
        password =
            try parameters.runtimeText("password")
            ?? ParameterText(parameter: "password", text: ValueReference.prompt, isSecret: true)
        validatingPath = try parameters.text("validating-path")
        challenges = try Authentication.challenges(parameters, defaults: ChallengeTest.basic)
    }

    /// Ends the backend's session with the kept credentials, which the engine then forgets.
    func logout(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self), let backend = kept.backend else {
            return .success(.forgetKept)
        }
        context.redactor.add(kept.password)
        let authorization = "Basic " + Data("\(kept.username):\(kept.password)".utf8).base64EncodedString()
        try await Authentication.endSession(backend: backend, authorization: authorization, context: context)
        context.http.removeAuthenticators(.basic, origin: backend.origin)
        return .success(.forgetKept)
    }

    /// What the step keeps, sealed in the store: the credentials the backend accepted, the user it named and the
    /// backend, so that a logout can end the session there.
    struct Kept: Codable {
        var username: String
        /// Revealed here only: the record is written to the encrypted store.
        var password: String
        var user: String?
        var backend: URL?
    }

    func authenticate(_ context: StepContext, kept: Kept?) async throws(StepFailure) -> StepOutcome {
        let origin = try Authentication.validatingURL(validatingPath, context: context).origin
        var credentials: BasicAuthenticator.Credentials?
        if let kept {
            context.redactor.add(kept.password)
            credentials = BasicAuthenticator.Credentials(username: kept.username, password: Secret(kept.password))
        }
        let username = self.username
        let password = self.password
        let known = Mutex<String?>(kept?.user)
        let authenticator = BasicAuthenticator(
            origin: origin, challenges: challenges, credentials: credentials,
            afterLogin: { authorization, transport throws(HTTPError) in
                try await Authentication.checkUser(
                    expected: known.withLock { $0 }, authorization: authorization, context: context,
                    transport: transport)
            }
        ) { refused throws(HTTPError) in
            do throws(StepFailure) {
                if let refused {
                    guard context.input.interactive else {
                        throw StepFailure(
                            .credentialsRefused,
                            "the backend refused the password of user `\(refused.username)` (it answered the Basic "
                                + "challenge again)"
                        )
                    }
                    context.say(
                        "The backend refused the user name or password of `\(refused.username)`; enter them again.")
                    let name = try context.input.value("username", question: "User name: ")
                    let secret = try context.input.value("password", question: "Password: ", secret: true)
                    context.redactor.add(secret)
                    return BasicAuthenticator.Credentials(username: name, password: Secret(secret))
                }
                return BasicAuthenticator.Credentials(
                    username: try context.resolve(username), password: Secret(try context.resolve(password)))
            } catch {
                throw HTTPError(error.code, error.message, transient: false)
            }
        }
        try Authentication.register(authenticator, context: context)
        let user = try await Authentication.validate(
            validatingPath, readUser: true, expected: kept?.user, context: context, method: "Basic")
        if let user { known.withLock { $0 = user } }
        try Authentication.provide(user: user ?? kept?.user, context: context)
        guard let sent = authenticator.current else {
            throw StepFailure(
                .noChallenge,
                "the validating request succeeded without a Basic challenge: the backend does not ask for Basic "
                    + "authentication"
            )
        }
        try context.keep(
            Kept(
                username: sent.username, password: sent.password.revealed, user: user,
                backend: Authentication.configuredBackend(context)))
        return .success
    }
}
