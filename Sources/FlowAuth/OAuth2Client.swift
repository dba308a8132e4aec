public import FlowDescriptor
public import FlowHTTP
public import FlowVocabulary
public import Foundation

/// Where an OAuth 2.0 authorization server answers.
public struct OAuth2Endpoints: Sendable, Hashable, Codable {
    public var authorization: URL?
    public var token: URL
    /// RFC 7009 token revocation, when the server offers it.
    public var revocation: URL?
    /// OpenID Connect RP-initiated logout, when the provider offers it.
    public var endSession: URL?
    /// The issuer an ID token must name (OpenID Connect).
    public var issuer: String?
    /// The provider's signing keys (OpenID Connect).
    public var jwks: URL?
    /// The client authentication methods the token endpoint takes (`token_endpoint_auth_methods_supported`), when
    /// the provider's metadata names them.
    public var clientAuthenticationMethods: [String]?

    public init(
        authorization: URL?, token: URL, revocation: URL? = nil, endSession: URL? = nil, issuer: String? = nil,
        jwks: URL? = nil, clientAuthenticationMethods: [String]? = nil
    ) {
        self.authorization = authorization
        self.token = token
        self.revocation = revocation
        self.endSession = endSession
        self.issuer = issuer
        self.jwks = jwks
        self.clientAuthenticationMethods = clientAuthenticationMethods
    }
}

/// How a confidential client proves itself to the token and revocation endpoints (RFC 6749 §2.3, OpenID Connect
/// Core §9), by the names of RFC 7591 §2.
public enum ClientAuthentication: String, Sendable, Hashable, Codable, CaseIterable {
    /// HTTP Basic with the form-encoded client ID and secret.
    case basic = "client_secret_basic"
    /// `client_id` and `client_secret` in the form body.
    case post = "client_secret_post"
    /// A JWT signed with the client secret (HS256) as `client_assertion` (RFC 7523 §2.2).
    case secretJWT = "client_secret_jwt"
    /// A JWT signed with the client's private key (RS256 or ES256) as `client_assertion` (RFC 7523 §2.2).
    case privateKeyJWT = "private_key_jwt"

    /// Whether the method signs with the private key (else it uses the secret).
    public var needsKey: Bool { self == .privateKeyJWT }

    /// The method for a provider that takes `supported` (its `token_endpoint_auth_methods_supported`) and a client
    /// with a secret and no key: Basic when it names Basic or names nothing (RFC 8414 §2's default), else the form
    /// body, else a JWT signed with the secret; Basic when it names none of these (``choose(amongst:secret:key:)``
    /// says so instead).
    public static func preferred(amongst supported: [String]?) -> ClientAuthentication {
        (try? choose(amongst: supported, secret: true, key: false)) ?? .basic
    }

    /// The method for a client that has a secret and/or a private key, at a provider whose metadata names
    /// `supported`: `private_key_jwt` with a key, else Basic, the form body, then `client_secret_jwt` with a secret,
    /// the first of these the provider names (when it names none at all: `private_key_jwt` with a key, else Basic).
    /// - Throws: ``HTTPError`` `oauth2-client-authentication` naming the provider's methods and flowrun's when the
    ///   provider names only methods this client cannot use.
    public static func choose(
        amongst supported: [String]?, secret: Bool, key: Bool
    ) throws(HTTPError)
        -> ClientAuthentication
    {
        let usable = (key ? [privateKeyJWT] : []) + (secret ? [basic, post, secretJWT] : [])
        guard let supported, !supported.isEmpty else { return key ? .privateKeyJWT : .basic }
        if let chosen = usable.first(where: { supported.contains($0.rawValue) }) { return chosen }
        let named = supported.map { "`\($0)`" }.joined(separator: ", ")
        throw HTTPError(
            .oauth2ClientAuthentication,
            "the provider takes \(named) at its token endpoint (`token_endpoint_auth_methods_supported`), none of "
                + "which this client can use; flowrun has `client_secret_basic`, `client_secret_post` and "
                + "`client_secret_jwt` with a `client-secret`, and `private_key_jwt` with a `client-key`"
                + " (this step gives \(given(secret: secret, key: key)))",
            transient: false)
    }

    private static func given(secret: Bool, key: Bool) -> String {
        switch (secret, key) {
        case (true, true): "a `client-secret` and a `client-key`"
        case (true, false): "a `client-secret`"
        case (false, true): "a `client-key`"
        case (false, false): "neither"
        }
    }
}

/// The tokens of one login.
public struct OAuth2Tokens: Sendable, Hashable, Codable {
    public var accessToken: Secret
    public var refreshToken: Secret?
    public var idToken: Secret?
    public var expiresAt: Date?
    public var scope: String?

    public init(
        accessToken: Secret, refreshToken: Secret? = nil, idToken: Secret? = nil, expiresAt: Date? = nil,
        scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.expiresAt = expiresAt
        self.scope = scope
    }

    /// Whether the access token has expired, or will within `margin`, at `now`.
    public func expires(within margin: TimeInterval, at now: Date) -> Bool {
        expiresAt.map { $0.timeIntervalSince(now) <= margin } ?? false
    }

    /// The secrets in it, revealed for the redactor that masks them in text.
    public var secrets: [String] { ([accessToken] + [refreshToken, idToken].compactMap { $0 }).map(\.revealed) }

    private enum CodingKeys: String, CodingKey {
        case accessToken, refreshToken, idToken, expiresAt, scope
    }

    /// Read as the sealed store wrote it: the tokens as plain strings, as before they were held in ``Secret``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = Secret(try container.decode(String.self, forKey: .accessToken))
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken).map(Secret.init)
        idToken = try container.decodeIfPresent(String.self, forKey: .idToken).map(Secret.init)
        expiresAt = try container.decodeIfPresent(Date.self, forKey: .expiresAt)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
    }

    /// Written revealed, for the sealed store only.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken.revealed, forKey: .accessToken)
        try container.encodeIfPresent(refreshToken?.revealed, forKey: .refreshToken)
        try container.encodeIfPresent(idToken?.revealed, forKey: .idToken)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(scope, forKey: .scope)
    }
}

/// An authorization request under way: the URL to open and what its answer is checked against.
public struct AuthorizationRequest: Sendable {
    public var url: URL
    public var redirect: URL
    public var state: String
    public var verifier: String
    public var nonce: String?
}

/// An OAuth 2.0 client (RFC 6749) with PKCE (RFC 7636), for the authorization code, refresh token and client
/// credentials grants, and token revocation (RFC 7009). Every request goes through the transport it is given.
public struct OAuth2Client: Sendable {
    public var clientID: String
    public var clientSecret: Secret?
    /// The private key of `private_key_jwt`.
    public var clientKey: ClientAssertionKey?
    public var endpoints: OAuth2Endpoints
    public var scopes: [String]
    /// How the client authenticates; `nil` leaves it to the provider's metadata
    /// (``ClientAuthentication/choose(amongst:secret:key:)``).
    public var clientAuthentication: ClientAuthentication?
    public var now: @Sendable () -> Date
    /// Where the client tells of each exchange with the authorization server (the run's debug log): method, URL,
    /// parameters and status, with codes, tokens, secrets, verifiers and the like masked (``ExchangeLine``).
    public var exchangeLog: (@Sendable (String) -> Void)?

    public init(
        clientID: String, clientSecret: Secret? = nil, clientKey: ClientAssertionKey? = nil, endpoints: OAuth2Endpoints,
        scopes: [String] = [], clientAuthentication: ClientAuthentication? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientKey = clientKey
        self.endpoints = endpoints
        self.scopes = scopes
        self.clientAuthentication = clientAuthentication
        self.now = now
    }

    /// How the client authenticates: as it was told, else as the provider's metadata prefers (Basic, or
    /// `private_key_jwt` with a key, when the metadata names nothing this client can use).
    public var chosenClientAuthentication: ClientAuthentication {
        clientAuthentication
            ?? (try? ClientAuthentication.choose(
                amongst: endpoints.clientAuthenticationMethods, secret: clientSecret != nil, key: clientKey != nil))
            ?? (clientKey != nil ? .privateKeyJWT : .basic)
    }

    /// Whether the client authenticates (a secret or a key), rather than being a public client.
    public var isConfidential: Bool { clientSecret != nil || clientKey != nil }

    /// Checks, for a confidential client not told how to authenticate, that the provider's metadata names a
    /// method it can use.
    /// - Throws: ``HTTPError`` `oauth2-client-authentication` naming the provider's methods and flowrun's.
    public func checkClientAuthentication() throws(HTTPError) {
        guard clientAuthentication == nil, isConfidential else { return }
        _ = try ClientAuthentication.choose(
            amongst: endpoints.clientAuthenticationMethods, secret: clientSecret != nil, key: clientKey != nil)
    }

    /// Whether the scopes ask for OpenID Connect (then a `nonce` is sent and the ID token checked).
    public var asksOpenID: Bool { scopes.contains("openid") }

    /// A new authorization request for `redirect`: fresh `state`, PKCE verifier (S256) and, for OpenID, `nonce`.
    public func authorizationRequest(redirect: URL) throws(HTTPError) -> AuthorizationRequest {
        guard let authorization = endpoints.authorization else {
            throw HTTPError(
                .oauth2NoAuthorizationEndpoint, "the OAuth 2.0 parameters name no authorization endpoint",
                transient: false)
        }
        let state = LoginSecrets.random(bytes: 16)
        let verifier = LoginSecrets.random(bytes: 32)
        let nonce = asksOpenID ? LoginSecrets.random(bytes: 16) : nil
        var components = URLComponents(url: authorization, resolvingAgainstBaseURL: true)
        var items = components?.queryItems ?? []
        items += [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirect.absoluteString),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "code_challenge", value: LoginSecrets.codeChallenge(for: verifier)),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        if !scopes.isEmpty { items.append(URLQueryItem(name: "scope", value: scopes.joined(separator: " "))) }
        if let nonce { items.append(URLQueryItem(name: "nonce", value: nonce)) }
        components?.queryItems = items
        // `+` is a space in a form query: encode it, as servers read these queries as forms.
        let query = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components?.percentEncodedQuery = query
        guard let url = components?.url else {
            throw HTTPError(
                .oauth2BadEndpoint, "cannot form the authorization URL from \(authorization.absoluteString)",
                transient: false)
        }
        exchangeLog?("authorization: GET \(ExchangeLine.url(url))")
        return AuthorizationRequest(url: url, redirect: redirect, state: state, verifier: verifier, nonce: nonce)
    }

    /// The authorization code in the redirect the login ended on, after checking its `state`.
    /// - Throws: `oauth2-state-mismatch` when `state` differs (a forged or stale redirect), `oauth2-denied` (or the
    ///   server's error code) for an error redirect, `oauth2-no-code` when neither is there.
    public func code(from redirect: URL, for request: AuthorizationRequest) throws(HTTPError) -> String {
        let items = URLComponents(url: redirect, resolvingAgainstBaseURL: true)?.queryItems ?? []
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        exchangeLog?("authorization answered: \(ExchangeLine.url(redirect))")
        guard item("state") == request.state else {
            throw HTTPError(
                .oauth2StateMismatch,
                "the login's redirect carries another `state` than the one sent "
                    + "(\(item("state") == nil ? "none" : "a different one")): "
                    + "it does not answer this login, so it is refused", transient: false)
        }
        if let error = item("error") {
            let description = item("error_description").map { ": \($0)" } ?? ""
            throw HTTPError(
                .oauth2(error), "the authorization server refused the login with `\(error)`\(description)",
                transient: false)
        }
        guard let code = item("code"), !code.isEmpty else {
            throw HTTPError(
                .oauth2NoCode, "the login's redirect carries neither a code nor an error", transient: false)
        }
        return code
    }

    /// Exchanges an authorization code (with its PKCE verifier) for tokens.
    public func exchange(
        code: String, for request: AuthorizationRequest, transport: HTTPTransport
    ) async throws(HTTPError) -> OAuth2Tokens {
        try await tokenRequest(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirect.absoluteString),
                ("code_verifier", request.verifier),
            ], what: "exchanging the authorization code", transport: transport)
    }

    /// New tokens for a refresh token. A server that rotates refresh tokens sends a new one; one that does not
    /// leaves the old one valid, and it is kept.
    public func refresh(_ tokens: OAuth2Tokens, transport: HTTPTransport) async throws(HTTPError) -> OAuth2Tokens {
        guard let refreshToken = tokens.refreshToken else {
            throw HTTPError(.oauth2NoRefreshToken, "there is no refresh token", transient: false)
        }
        var fresh = try await tokenRequest(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken.revealed)],
            what: "refreshing the access token", transport: transport)
        if fresh.refreshToken == nil { fresh.refreshToken = refreshToken }
        guard let renewed = fresh.idToken, renewed != tokens.idToken else {
            fresh.idToken = tokens.idToken
            return fresh
        }
        // OpenID Connect Core §12.2: a refreshed ID token is checked as the login's was, and names the same user.
        let subject = try await verifyIDToken(renewed.revealed, nonce: nil, transport: transport)
        if let subject, let previous = tokens.idToken.flatMap({ IDTokenVerifier.subject(of: $0.revealed) }),
            subject != previous
        {
            throw HTTPError(
                .idTokenInvalid,
                "the ID token of the refresh is refused: it names subject `\(subject)`, not `\(previous)` of the login",
                transient: false)
        }
        return fresh
    }

    /// Checks the ID token that came with `tokens`, when the provider publishes its keys and an issuer (OpenID
    /// Connect); an ID token from a server that publishes neither cannot be checked and is not used.
    public func verifyIDToken(of tokens: OAuth2Tokens, nonce: String?, transport: HTTPTransport) async throws(HTTPError)
    {
        guard let token = tokens.idToken else { return }
        try await verifyIDToken(token.revealed, nonce: nonce, transport: transport)
    }

    /// Checks `token`; returns its subject, or `nil` when the provider publishes no keys or issuer to check with.
    @discardableResult
    private func verifyIDToken(
        _ token: String, nonce: String?, transport: HTTPTransport
    ) async throws(HTTPError)
        -> String?
    {
        guard let keys = endpoints.jwks, let issuer = endpoints.issuer else { return nil }
        return try await IDTokenVerifier(issuer: issuer, clientID: clientID, keys: keys)
            .verify(token, nonce: nonce, now: now(), transport: transport)
    }

    /// Tokens for the client itself (the client credentials grant).
    public func clientCredentials(transport: HTTPTransport) async throws(HTTPError) -> OAuth2Tokens {
        guard isConfidential else {
            throw HTTPError(
                .oauth2NoClientSecret, "the client credentials grant needs the client secret or key",
                transient: false)
        }
        var pairs = [("grant_type", "client_credentials")]
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return try await tokenRequest(pairs, what: "asking for a client credentials token", transport: transport)
    }

    /// Revokes `token` (RFC 7009) where the server offers revocation; `false` when it does not.
    @discardableResult
    public func revoke(_ token: Secret, hint: String, transport: HTTPTransport) async throws(HTTPError) -> Bool {
        guard let revocation = endpoints.revocation else { return false }
        let pairs = [("token", token.revealed), ("token_type_hint", hint)]
        let response = try await transport.send(try await form(revocation, pairs))
        exchangeLog?(
            "revocation: POST \(ExchangeLine.url(revocation)) "
                + "\(ExchangeLine.form(pairs, sentAs: clientAuthenticationText)) → \(response.status)")
        guard response.status == 200 else {
            throw HTTPError(
                .oauth2RevocationFailed, "POST \(revocation.absoluteString) answered \(response.status)",
                transient: response.status >= 500)
        }
        return true
    }

    /// The endpoints an OpenID provider publishes at `issuer` + `/.well-known/openid-configuration`.
    /// - Parameter log: where the exchange is told (the run's debug log).
    public static func discover(
        issuer: URL, transport: HTTPTransport, log: (@Sendable (String) -> Void)? = nil
    ) async throws(HTTPError) -> OAuth2Endpoints {
        let base =
            issuer.absoluteString.hasSuffix("/") ? String(issuer.absoluteString.dropLast()) : issuer.absoluteString
        guard let url = URL(string: base + "/.well-known/openid-configuration") else {
            throw HTTPError(
                .oauth2BadIssuer, "cannot form the discovery URL of issuer \(issuer.absoluteString)",
                transient: false)
        }
        let response = try await transport.send(HTTPRequest(url: url, headers: [("Accept", "application/json")]))
        log?("discovery: GET \(ExchangeLine.url(url)) → \(response.status)")
        guard response.status == 200, let metadata = JSONValue(parsing: response.body), case .object = metadata
        else {
            throw HTTPError(
                .oauth2DiscoveryFailed,
                "GET \(url.absoluteString) answered \(response.status), not the provider's metadata",
                transient: response.status >= 500)
        }
        func endpoint(_ name: String) -> URL? { metadata[name]?.string.flatMap(URL.init(string:)) }
        guard let token = endpoint("token_endpoint") else {
            throw HTTPError(
                .oauth2DiscoveryFailed, "the metadata at \(url.absoluteString) names no `token_endpoint`",
                transient: false)
        }
        let published = metadata["issuer"]?.string
        guard published == nil || published == base || published == issuer.absoluteString else {
            throw HTTPError(
                .oauth2DiscoveryFailed,
                "the metadata at \(url.absoluteString) names issuer `\(published!)`, not `\(issuer.absoluteString)`",
                transient: false)
        }
        return OAuth2Endpoints(
            authorization: endpoint("authorization_endpoint"), token: token,
            revocation: endpoint("revocation_endpoint"),
            endSession: endpoint("end_session_endpoint"), issuer: published ?? base, jwks: endpoint("jwks_uri"),
            clientAuthenticationMethods: metadata["token_endpoint_auth_methods_supported"]?.elements?.compactMap(
                \.string))
    }

    // MARK: - The token endpoint

    private func tokenRequest(
        _ pairs: [(String, String)], what: String, transport: HTTPTransport
    ) async throws(HTTPError) -> OAuth2Tokens {
        let response = try await transport.send(try await form(endpoints.token, pairs)) { _, _ in .stop }
        let object = JSONValue(parsing: response.body)
        exchangeLog?(
            "token: POST \(ExchangeLine.url(endpoints.token)) "
                + "\(ExchangeLine.form(pairs, sentAs: clientAuthenticationText)) → \(response.status) "
                + ExchangeLine.answer(object))
        guard response.status == 200 else {
            let error = object?["error"]?.string
            let description = object?["error_description"]?.string.map { " (\($0))" } ?? ""
            let endpoint = "POST \(endpoints.token.absoluteString)"
            guard let error else {
                throw HTTPError(
                    response.status >= 500 ? .serverError : .oauth2TokenFailed,
                    "\(what): \(endpoint) answered \(response.status)", transient: response.status >= 500)
            }
            throw HTTPError(
                .oauth2(error), "\(what): \(endpoint) answered \(response.status) `\(error)`\(description)",
                transient: false)
        }
        guard let object, let access = object["access_token"]?.string, !access.isEmpty else {
            throw HTTPError(
                .oauth2BadTokenResponse, "\(what): the token endpoint's answer has no `access_token`",
                transient: false)
        }
        if let type = object["token_type"]?.string, type.lowercased() != "bearer" {
            throw HTTPError(
                .oauth2BadTokenResponse, "\(what): the token type is `\(type)`, not `Bearer`", transient: false)
        }
        let lifetime = object["expires_in"]?.number ?? object["expires_in"]?.string.flatMap(Double.init)
        return OAuth2Tokens(
            accessToken: Secret(access), refreshToken: object["refresh_token"]?.string.map(Secret.init),
            idToken: object["id_token"]?.string.map(Secret.init),
            expiresAt: lifetime.map { now().addingTimeInterval($0) }, scope: object["scope"]?.string)
    }

    /// How the client authenticates, for the exchange log.
    private var clientAuthenticationText: String {
        isConfidential ? chosenClientAuthentication.rawValue : "public client"
    }

    /// A form POST authenticated as the client (RFC 6749 §2.3, RFC 7523 §2.2): the secret as HTTP Basic or in the
    /// form, or a signed assertion (its audience the token endpoint), as ``chosenClientAuthentication`` says, or
    /// `client_id` in the form for a public client.
    private func form(_ url: URL, _ pairs: [(String, String)]) async throws(HTTPError) -> HTTPRequest {
        var pairs = pairs
        var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        let method = chosenClientAuthentication
        switch (clientSecret, clientKey) {
        case (let secret?, _) where method == .basic:
            let credentials = HTMLForm.formEscape(clientID) + ":" + HTMLForm.formEscape(secret.revealed)
            headers.append(("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()))
        case (let secret?, _) where method == .post:
            pairs += [("client_id", clientID), ("client_secret", secret.revealed)]
        case (let secret?, _) where method == .secretJWT:
            pairs += try await assertion(signer: .secret(secret))
        case (_, let key?) where method == .privateKeyJWT:
            pairs += try await assertion(signer: .key(key))
        default:
            pairs.append(("client_id", clientID))
        }
        // Every form holds a secret (a code and its verifier, a refresh token, a client secret, a token to revoke).
        return HTTPRequest(
            method: "POST", url: url, headers: headers, body: Array(HTMLForm.encode(pairs).utf8), bodyHoldsSecret: true)
    }

    /// The form pairs of a JWT client assertion, with `client_id` beside it (RFC 7521 §4.2 allows it; some
    /// providers want it).
    private func assertion(signer: ClientAssertion.Signer) async throws(HTTPError) -> [(String, String)] {
        let jwt = try await ClientAssertion.make(
            clientID: clientID, audience: endpoints.token, signer: signer, now: now())
        return [
            ("client_id", clientID), ("client_assertion_type", ClientAssertion.assertionType),
            ("client_assertion", jwt),
        ]
    }
}

/// One exchange with an authorization server as the debug log shows it: the URL, the form and the answer's fields,
/// with the value of every parameter or field that could open an account (codes, tokens, secrets, verifiers,
/// assertions, `state` and `nonce`) masked. Only names are compared, so a value never decides what is shown.
public enum ExchangeLine {
    /// What a masked value reads as.
    public static let masked = "<masked>"

    /// Parameter and field names whose values are never shown.
    public static let secretNames: Set<String> = [
        "code", "code_verifier", "client_secret", "token", "access_token", "refresh_token", "id_token", "assertion",
        "client_assertion", "password", "state", "nonce", "device_code", "user_code", "samlresponse", "samlrequest",
        "session_state", "id_token_hint", "logout_token",
    ]

    static func isSecret(_ name: String) -> Bool { secretNames.contains(name.lowercased()) }

    /// `url` with the values of secret query parameters masked.
    public static func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let items = components.queryItems, !items.isEmpty
        else { return url.absoluteString }
        components.queryItems = items.map { isSecret($0.name) ? URLQueryItem(name: $0.name, value: masked) : $0 }
        // The mark reads as it does in forms and answers, not percent-encoded.
        return (components.string ?? url.absoluteString).replacingOccurrences(of: "%3Cmasked%3E", with: masked)
    }

    /// The form's pairs (`[grant_type=authorization_code code=<masked> …]`) and how the client authenticated.
    public static func form(_ pairs: [(String, String)], sentAs authentication: String) -> String {
        let shown = pairs.map { name, value in "\(name)=\(isSecret(name) ? masked : value)" }
        return "[" + (shown + ["client: \(authentication)"]).joined(separator: " ") + "]"
    }

    /// The answer's JSON fields, sorted by name, secret ones masked; `(no JSON)` for any other body.
    public static func answer(_ object: JSONValue?) -> String {
        guard case .object(let members)? = object else { return "(no JSON)" }
        let fields = members.sorted { $0.0 < $1.0 }.map { name, value -> String in
            guard !isSecret(name) else { return "\(name): \(masked)" }
            switch value {
            case .string(let text): return "\(name): \(text)"
            case .int, .double, .bool: return "\(name): \(value.rendered())"
            default: return "\(name): …"
            }
        }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
