import FlowAuth
import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation
import Synchronization

/// The `oauth2-authentication` step, the SDK's `OAuth2AuthenticationStep`: logs in with the authorization code
/// grant (PKCE S256, `state`, a presenter for the login page) or the client credentials grant, proves the login
/// with the validating request, and keeps the tokens in the encrypted store. A restore sends the kept tokens and
/// refreshes them when they expire; it logs in again only when the refresh token is refused.
struct OAuth2AuthenticationStep: BuiltinStep, KeptLoginStep, LoggingOutStep {
    enum Grant: String {
        case authorizationCode = "authorization-code"
        case clientCredentials = "client-credentials"
    }

    static let spec = StepSpec(
        name: "oauth2-authentication", aliases: ["OAuth2AuthenticationStep"],
        summary:
            "Authenticates with OAuth 2.0: the authorization code grant with PKCE through a presenter, or the client "
            + "credentials grant; tokens kept in the store and refreshed.",
        parameters: [
            ParameterSpec(
                "grant", .oneOf(["authorization-code", "client-credentials"]), default: "authorization-code",
                "The OAuth 2.0 grant."),
            Authentication.presenter,
            Authentication.formFields,
            ParameterSpec(
                "client-secret", .secret,
                "The client secret of a confidential client (the client credentials grant needs it or `client-key`): "
                    + "`${env.NAME}` or `${input.NAME}`."),
            ParameterSpec(
                "client-key", .string,
                "A PEM private key file (RSA: RS256; P-256: ES256) the client signs `private_key_jwt` assertions with "
                    + "(RFC 7523), relative to the flow file; read when the step runs, never kept or shown."),
            ParameterSpec(
                "client-authentication", .oneOf(ClientAuthentication.allCases.map(\.rawValue)),
                "How a confidential client authenticates (RFC 6749 §2.3, RFC 7523): `client_secret_basic` "
                    + "(HTTP Basic), `client_secret_post` (in the form), `client_secret_jwt` (a JWT signed with the "
                    + "secret) or `private_key_jwt` (a JWT signed with `client-key`); by default as the provider's "
                    + "metadata says "
                    + "(`token_endpoint_auth_methods_supported`): `private_key_jwt` with a key, else Basic, the form, "
                    + "`client_secret_jwt`, the first it names."),
            ParameterSpec(
                "scope", .string,
                "The scopes to ask for, separated by spaces (default: those of the OAuth 2.0 parameters)."),
            ParameterSpec(
                "issuer", .url,
                "An OpenID Connect issuer: the endpoints are read from its `/.well-known/openid-configuration` instead "
                    + "of the OAuth 2.0 parameters."
            ),
            ParameterSpec(
                "client-id", .string,
                "The client ID, when it is not the one in the OAuth 2.0 parameters (with `issuer`)."),
            ParameterSpec(
                "redirect-url", .url,
                "The redirect URL, when it is not the one in the OAuth 2.0 parameters (with `issuer`)."),
            Authentication.validatingPath,
        ] + Authentication.challengeParameters,
        requires: [
            KeySpec(.authenticationURL),
            KeySpec(.oauth2Parameters, when: "grant", is: ["authorization-code"]),
            KeySpec(.oauth2ClientCredentialsParameters, when: "grant", is: ["client-credentials"]),
        ],
        provides: [KeySpec(.userID, optional: true)],
        waits: .person, authenticates: [.oauth2, .oauth2ClientCredentials])

    let grant: Grant
    let presenter: PresenterKind
    let fields: HeadlessFormPresenter.FieldNames
    let clientSecret: ParameterText?
    /// The path of the PEM private key of `private_key_jwt`.
    let clientKey: ParameterText?
    /// The flow file's folder: a relative `client-key` written in the flow is relative to it.
    let flowFolder: URL
    let clientAuthentication: ClientAuthentication?
    let scope: String?
    let issuer: URL?
    let clientID: String?
    let redirectURL: URL?
    let validatingPath: String?
    let challenges: [ChallengeTest]

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        grant = try parameters.choice("grant", as: Grant.self) ?? .authorizationCode
        presenter = try parameters.choice("presenter", as: PresenterKind.self) ?? .systemBrowser
        fields = Authentication.fieldNames(try parameters.textMapping("form-fields"))
        clientSecret = try parameters.runtimeText("client-secret")
        clientKey = try parameters.runtimeText("client-key")
        flowFolder = URL(fileURLWithPath: parameters.flow.file).deletingLastPathComponent()
        clientAuthentication = try parameters.choice("client-authentication", as: ClientAuthentication.self)
        scope = try parameters.text("scope")
        issuer = try parameters.text("issuer").flatMap(URL.init(string:))
        clientID = try parameters.text("client-id")
        redirectURL = try parameters.text("redirect-url").flatMap(URL.init(string:))
        validatingPath = try parameters.text("validating-path")
        challenges = try Authentication.challenges(parameters, defaults: ChallengeTest.oauth2)
        if grant == .clientCredentials, clientSecret == nil, clientKey == nil {
            throw ParameterProblem(
                "the client credentials grant needs `client-secret` (`${env.NAME}` or `${input.NAME}`) or "
                    + "`client-key`.",
                at: parameters.location, path: parameters.path.appending("client-secret"), missing: true)
        }
        try Self.checkClientAuthentication(
            clientAuthentication, secret: clientSecret != nil, key: clientKey != nil, parameters)
    }

    /// A method told that lacks what it signs with, or a key that the method told does not use.
    private static func checkClientAuthentication(
        _ method: ClientAuthentication?, secret: Bool, key: Bool, _ parameters: BuiltinParameters
    ) throws(ParameterProblem) {
        guard let method else { return }
        let at = parameters.node("client-authentication")?.value.location ?? parameters.location
        if method.needsKey, !key {
            throw ParameterProblem(
                "`client-authentication: \(method.rawValue)` signs with the client's private key: name its PEM file "
                    + "in `client-key`.",
                at: at, path: parameters.path.appending("client-key"), missing: true)
        }
        if !method.needsKey, key {
            throw ParameterProblem(
                "`client-key` signs `private_key_jwt` assertions, and `client-authentication: \(method.rawValue)` "
                    + "does not use it: leave one of them out.",
                at: parameters.node("client-key")?.value.location ?? parameters.location,
                path: parameters.path.appending("client-key"))
        }
        if method == .secretJWT, !secret {
            throw ParameterProblem(
                "`client-authentication: client_secret_jwt` signs with the client secret: give `client-secret`.",
                at: at, path: parameters.path.appending("client-secret"), missing: true)
        }
    }

    /// Revokes the kept tokens where the server offers revocation (RFC 7009), ends the provider's session when it
    /// offers an end-session endpoint, and ends the backend's session; the engine then forgets the tokens.
    func logout(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        guard let kept = context.kept(as: Kept.self) else { return .success(.forgetKept) }
        kept.tokens?.secrets.forEach(context.redactor.add)
        let transport = context.http.transport
        if let tokens = kept.tokens, let endpoints = kept.endpoints {
            // A confidential client authenticates to revoke, with the secret the flow names (never kept): a
            // secret that cannot be had is said to be missing, not sent as nothing for the server to refuse.
            let secret: Secret?
            do throws(StepFailure) {
                secret = try clientSecret.map { text throws(StepFailure) in Secret(try context.resolve(text)) }
            } catch {
                throw StepFailure(
                    error.code, "the client secret is needed to revoke the tokens: \(error.message)",
                    transient: error.isTransient)
            }
            var client = OAuth2Client(
                clientID: kept.clientID ?? "", clientSecret: secret, clientKey: try assertionKey(context),
                endpoints: endpoints, clientAuthentication: clientAuthentication ?? kept.clientAuthentication)
            client.exchangeLog = Self.exchangeLog(context)
            do {
                if let refresh = tokens.refreshToken {
                    _ = try await client.revoke(refresh, hint: "refresh_token", transport: transport)
                }
                let revoked = try await client.revoke(
                    tokens.accessToken, hint: "access_token", transport: transport)
                context.note(
                    "tokens-revoked",
                    revoked
                        ? "the tokens were revoked" : "the server offers no revocation; the tokens were forgotten")
            } catch {
                throw Authentication.failure(error, what: "revoking the tokens")
            }
            if let endSession = endpoints.endSession,
                var components = URLComponents(url: endSession, resolvingAgainstBaseURL: true)
            {
                components.queryItems =
                    (components.queryItems ?? [])
                    + (tokens.idToken.map { [URLQueryItem(name: "id_token_hint", value: $0.revealed)] } ?? [])
                if let url = components.url {
                    let answer = try? await transport.send(HTTPRequest(url: url)) { _, _ in .stop }
                    context.log.write(
                        .debug,
                        "\(context.name): end session: GET \(ExchangeLine.url(url)) → "
                            + (answer.map { String($0.status) } ?? "no answer"))
                }
            }
        }
        if let backend = kept.backend {
            try await Authentication.endSession(
                backend: backend, authorization: kept.tokens.map { "Bearer \($0.accessToken.revealed)" },
                context: context)
            context.http.removeAuthenticators(.oauth2, origin: backend.origin)
        }
        return .success(.forgetKept)
    }

    /// What this step keeps, sealed in the store: the tokens (revealed here only), the user, and where to revoke
    /// them.
    struct Kept: Codable, Sendable {
        var accessToken: String?
        var refreshToken: String?
        var idToken: String?
        var expiresAt: Date?
        var scope: String?
        var user: String?
        var backend: URL?
        var clientID: String?
        /// How the client sent its secret at login, so that a logout revokes the same way.
        var clientAuthentication: ClientAuthentication?
        var tokenEndpoint: URL?
        var revocationEndpoint: URL?
        var endSessionEndpoint: URL?

        init(
            tokens: OAuth2Tokens?, user: String?, endpoints: OAuth2Endpoints?, backend: URL?, clientID: String?,
            clientAuthentication: ClientAuthentication? = nil
        ) {
            self.tokens = tokens
            self.user = user
            self.backend = backend
            self.clientID = clientID
            self.clientAuthentication = clientAuthentication
            tokenEndpoint = endpoints?.token
            revocationEndpoint = endpoints?.revocation
            endSessionEndpoint = endpoints?.endSession
        }

        var tokens: OAuth2Tokens? {
            get {
                accessToken.map {
                    OAuth2Tokens(
                        accessToken: Secret($0), refreshToken: refreshToken.map(Secret.init),
                        idToken: idToken.map(Secret.init), expiresAt: expiresAt, scope: scope)
                }
            }
            set {
                accessToken = newValue?.accessToken.revealed
                refreshToken = newValue?.refreshToken?.revealed
                idToken = newValue?.idToken?.revealed
                expiresAt = newValue?.expiresAt
                scope = newValue?.scope
            }
        }

        var endpoints: OAuth2Endpoints? {
            tokenEndpoint.map {
                OAuth2Endpoints(
                    authorization: nil, token: $0, revocation: revocationEndpoint, endSession: endSessionEndpoint)
            }
        }
    }

    func authenticate(_ context: StepContext, kept: Kept?) async throws(StepFailure) -> StepOutcome {
        let origin = try Authentication.validatingURL(validatingPath, context: context).origin
        let kept = kept ?? Kept(tokens: nil, user: nil, endpoints: nil, backend: nil, clientID: nil)
        if let tokens = kept.tokens { tokens.secrets.forEach(context.redactor.add) }
        let (client, redirect) = try await self.client(context, reusing: kept.tokens)
        let presenter = Authentication.presenter(self.presenter, fields: fields, context: context)
        let oauthGrant: OAuth2Authenticator.Grant =
            grant == .clientCredentials
            ? .clientCredentials : .authorizationCode(presenter: presenter, redirect: redirect)
        let backend = Authentication.configuredBackend(context)
        let latest = Mutex(
            Kept(
                tokens: kept.tokens, user: kept.user, endpoints: client.endpoints, backend: backend,
                clientID: client.clientID, clientAuthentication: client.chosenClientAuthentication))
        let expected = kept.user
        let known = Mutex(kept.user)
        let mode = context.mode
        let needsPerson =
            Authentication.presenterKind(self.presenter, context: context) == .manual && !context.input.interactive
        let authenticator = OAuth2Authenticator(
            origin: origin, challenges: challenges, client: client, grant: oauthGrant, tokens: kept.tokens,
            transport: context.http.transport,
            loginBlocked: {
                needsPerson
                    ? HTTPError(
                        .missingInput, "the `manual` presenter needs a terminal; there is none", transient: false)
                    : nil
            },
            onTokens: { tokens in
                tokens.secrets.forEach(context.redactor.add)
                let value = latest.withLock {
                    $0.tokens = tokens
                    return $0
                }
                // A restore writes rotated tokens into the open store at once: the server may already have
                // retired the old refresh token. A write that fails is said, not dropped.
                if mode == .restore { Self.keepRotated(value, context: context) }
            },
            afterLogin: { tokens, transport throws(HTTPError) in
                guard self.grant == .authorizationCode else { return }
                try await Authentication.checkUser(
                    expected: known.withLock { $0 }, authorization: "Bearer \(tokens.accessToken.revealed)",
                    context: context,
                    transport: transport)
            })
        try Authentication.register(authenticator, context: context)
        let user = try await Authentication.validate(
            validatingPath, readUser: grant == .authorizationCode, expected: expected, context: context,
            method: "OAuth 2.0")
        if let user { known.withLock { $0 = user } }
        try Authentication.provide(user: user ?? kept.user, context: context)
        guard let tokens = authenticator.tokens else {
            throw StepFailure(
                .noChallenge,
                "the validating request succeeded without an OAuth 2.0 challenge: the backend does not ask for a "
                    + "token"
            )
        }
        let activity = authenticator.activity
        if activity.logins == 0 {
            context.note(
                "tokens-reused",
                activity.refreshes > 0
                    ? "the kept tokens were refreshed; no new login" : "the kept tokens were used; no new login")
        } else if grant == .authorizationCode {
            context.note("logged-in", "a new login through the `\(presenter.name)` presenter")
        }
        try context.keep(
            Kept(
                tokens: tokens, user: user ?? kept.user, endpoints: client.endpoints, backend: backend,
                clientID: client.clientID, clientAuthentication: client.chosenClientAuthentication))
        return .success
    }

    /// The client: from the OAuth 2.0 parameters, or from the issuer's metadata. A restore that `reusing` tokens
    /// still valid needs no client secret: one that cannot be had then is left out (the server asks for it only
    /// if a new grant is needed).
    private func client(
        _ context: StepContext, reusing tokens: OAuth2Tokens? = nil
    ) async throws(StepFailure) -> (OAuth2Client, URL) {
        // The grant's parameters: both records have the endpoint, client and scope fields read here.
        let (key, parameters): (String, [String: InfoValue]?) =
            grant == .clientCredentials
            ? (InfoKey.oauth2ClientCredentialsParameters.name, context.info[.oauth2ClientCredentialsParameters]?.fields)
            : (InfoKey.oauth2Parameters.name, context.info[.oauth2Parameters]?.fields)
        func url(_ field: String) -> URL? { parameters?[field]?.text.flatMap(URL.init(string:)) }
        var endpoints: OAuth2Endpoints
        if let issuer {
            do {
                endpoints = try await OAuth2Client.discover(
                    issuer: issuer, transport: context.http.transport, log: Self.exchangeLog(context))
            } catch {
                throw Authentication.failure(error, what: "reading the OpenID provider's metadata")
            }
        } else {
            guard let token = url("tokenEndpointURL") else {
                throw StepFailure(
                    .missingInfo,
                    "`\(key)` has no `tokenEndpointURL` and the step names no `issuer` to read the endpoints from")
            }
            endpoints = OAuth2Endpoints(authorization: url("authorizationEndpointURL"), token: token)
            // The backend as authorization server offers revocation beside its token endpoint.
            if token.path.hasSuffix("/oauth2/api/v1/token") {
                endpoints.revocation = token.deletingLastPathComponent().appendingPathComponent("revoke")
            }
        }
        guard let id = clientID ?? parameters?["clientID"]?.text else {
            throw StepFailure(
                .missingInfo, "no OAuth 2.0 client ID: `\(key)` has no `clientID` and the step names no `client-id`")
        }
        var scopes: [String] = []
        if let scope {
            scopes = scope.split(separator: " ").map(String.init)
        } else if case .list(let values)? = parameters?["scopes"] {
            scopes = values.compactMap(\.text)
        }
        let reusable = tokens.map { !$0.expires(within: 60, at: Date()) } ?? false
        let secret: Secret?
        do throws(StepFailure) {
            secret = try clientSecret.map { text throws(StepFailure) in Secret(try context.resolve(text)) }
        } catch  where reusable && [.missingInput, .missingEnvironment].contains(error.code) {
            secret = nil
        }
        // The key likewise: its path from an input or a variable that is not there now is not needed either.
        let clientKey: ClientAssertionKey?
        do throws(StepFailure) {
            clientKey = try assertionKey(context)
        } catch  where reusable && [.missingInput, .missingEnvironment].contains(error.code) {
            clientKey = nil
        }
        let redirect = redirectURL ?? url("redirectURL")
        guard grant == .clientCredentials || redirect != nil else {
            throw StepFailure(
                .missingInfo, "no redirect URL: `\(key)` has no `redirectURL` and the step names no `redirect-url`")
        }
        var client = OAuth2Client(
            clientID: id, clientSecret: secret, clientKey: clientKey, endpoints: endpoints, scopes: scopes,
            clientAuthentication: clientAuthentication)
        client.exchangeLog = Self.exchangeLog(context)
        do {
            try client.checkClientAuthentication()
        } catch {
            throw Authentication.failure(error, what: "choosing how the client authenticates")
        }
        return (client, redirect ?? endpoints.token)
    }

    /// The private key of `client-key`, read now from its file (a relative path written in the flow is taken from
    /// the flow file's folder), its text added to the secrets the run never shows; `nil` without `client-key`.
    private func assertionKey(_ context: StepContext) throws(StepFailure) -> ClientAssertionKey? {
        guard let clientKey else { return nil }
        var path = try context.resolve(clientKey)
        if !clientKey.text.contains("${"), !path.hasPrefix("/") {
            path = flowFolder.appendingPathComponent(path).standardizedFileURL.path
        }
        let limit = ReaderLimits.default.maxFileBytes
        guard let bytes = FileBytes.read(path, limit: limit), bytes.count <= limit else {
            throw StepFailure(
                .oauth2BadClientKey, "the client key \(path) cannot be read: \(FileBytes.whyUnreadable(path))")
        }
        let pem = Secret(String(decoding: bytes, as: UTF8.self))
        context.redactor.add(pem.revealed)
        do {
            return try ClientAssertionKey(pem: pem)
        } catch {
            throw StepFailure(.oauth2BadClientKey, "the client key \(path): \(error.message)")
        }
    }

    /// The run's debug log, for the exchanges with the authorization server (their secrets masked by the client).
    /// Writes tokens the server rotated during a restore into the open store. A write that fails does not stop
    /// the restore (the new tokens work for this run) but is said and traced (`tokens-not-kept`): the store still
    /// holds the old refresh token, which the server may have retired, so the next restore may need a login.
    private static func keepRotated(_ value: Kept, context: StepContext) {
        do throws(StepFailure) {
            try context.keepNow(value)
        } catch {
            let text =
                "The server rotated the tokens, but they could not be written into the store (\(error.message)): the "
                + "next restore may need a new login."
            context.note("tokens-not-kept", text)
            context.say(text)
        }
    }

    private static func exchangeLog(_ context: StepContext) -> @Sendable (String) -> Void {
        let log = context.log
        let name = context.name
        return { line in log.writeMasked(.debug, "\(name): \(line)") }
    }
}
