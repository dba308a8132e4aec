internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation

/// A client registered in an application's `oauth2.clients`.
struct OAuthClient: Equatable {
    var id: String
    var application: String
    /// `authorization_code` or `client_credentials`.
    var grantType: String
    /// The registered redirect URL, `${backend}` replaced.
    var redirectURL: String?
    /// The client's secret; a client without one is public.
    var secret: String?
    /// How the client must send its secret (`tokenEndpointAuthMethod`: `client_secret_basic` or
    /// `client_secret_post`); either way when the data names none.
    var authenticationMethod: String?
}

/// An OAuth 2.0 error of the token and revocation endpoints (RFC 6749 §5.2).
struct OAuthError: Error {
    var code: String
    var description: String

    init(_ code: String, _ description: String) {
        self.code = code
        self.description = description
    }

    /// 400 with `{"error", "error_description"}`; `invalid_client` is a 401 with a Basic challenge.
    var answer: Answer {
        var headers = Backend.noStore
        if code == "invalid_client" { headers.append(("WWW-Authenticate", "Basic realm=\"oauth2\"")) }
        return Answer(
            status: code == "invalid_client" ? 401 : 400, headers: headers,
            json: [
                "error": .string(code), "error_description": .string(description),
            ])
    }
}

extension Backend {
    static let authorizePath = "/oauth2/api/v1/authorize"
    /// The cookie that ties an authorize transaction to the browser that was shown the form.
    static let authorizeCookie = "oauth2_browser"
    /// The scope granted when a request names none.
    static let defaultScope = "mobileservices"
    /// Token answers and errors must not be cached (RFC 6749 §5.1).
    static let noStore = [("Cache-Control", "no-store"), ("Pragma", "no-cache")]

    // MARK: Clients

    /// Every client of every application's `oauth2` entries.
    var oauthClients: [OAuthClient] {
        data.applications.flatMap { app in
            app.auth.filter { $0.type == "oauth2" }.flatMap { entry -> [OAuthClient] in
                let config = Self.substitute(entry.config, backend: backendURL(of: app))
                guard case .array(let clients)? = config["oauth2.clients"] else { return [] }
                return clients.compactMap { client in
                    guard let id = client["clientID"]?.string else { return nil }
                    return OAuthClient(
                        id: id, application: app.id, grantType: client["grantType"]?.string ?? "authorization_code",
                        redirectURL: client["redirectURL"]?.string, secret: client["clientSecret"]?.string,
                        authenticationMethod: client["tokenEndpointAuthMethod"]?.string)
                }
            }
        }
    }

    func oauthClient(_ id: String) -> OAuthClient? {
        oauthClients.first { $0.id == id }
    }

    /// Whether `given` may stand for the registered redirect URL: the same URL (an empty path is `/`), or, when the
    /// registered one is on a loopback address, any loopback address with any port (RFC 8252 §7.3).
    static func redirectMatches(_ given: String, registered: String) -> Bool {
        guard let lhs = URLComponents(string: given), let rhs = URLComponents(string: registered),
            lhs.scheme != nil, lhs.fragment == nil
        else { return false }
        let samePath =
            (lhs.path.isEmpty ? "/" : lhs.path) == (rhs.path.isEmpty ? "/" : rhs.path)
            && lhs.query == rhs.query && lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
        guard samePath else { return false }
        if lhs.host?.lowercased() == rhs.host?.lowercased(), lhs.port == rhs.port { return true }
        return isLoopback(rhs.host) && isLoopback(lhs.host) && lhs.scheme?.lowercased() == "http"
    }

    static func isLoopback(_ host: String?) -> Bool {
        ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host?.lowercased() ?? "")
    }

    /// `url` with `items` added to its query.
    static func adding(_ items: [(String, String)], to url: String) -> String {
        url + (url.contains("?") ? "&" : "?") + FormFields.encode(items)
    }

    // MARK: Authorize

    /// `GET /oauth2/api/v1/authorize`: checks the request, then shows the login form of a new transaction.
    mutating func authorize(_ request: RequestFacts) -> Answer {
        let query = request.query
        let parameters = [
            "response_type", "client_id", "redirect_uri", "state", "scope", "code_challenge",
            "code_challenge_method", "nonce",
        ]
        // Until the client and its redirect URL are known good, errors are pages: never redirect to an unchecked URL.
        guard let clientID = query.nonEmpty("client_id") else {
            return Self.errorPage(400, "The authorization request has no client_id.")
        }
        guard let client = oauthClient(clientID) else {
            return Self.errorPage(400, "No OAuth 2.0 client `\(clientID)` is registered on the backend.")
        }
        guard let registered = client.redirectURL else {
            return Self.errorPage(400, "Client `\(clientID)` has no registered redirect URL.")
        }
        let redirect = query.nonEmpty("redirect_uri")
        if let redirect, !Self.redirectMatches(redirect, registered: registered) {
            return Self.errorPage(
                400, "The redirect_uri `\(redirect)` is not the one registered for client `\(clientID)`.")
        }
        let target = redirect ?? registered
        let state = query["state"]
        func fail(_ error: String, _ description: String) -> Answer {
            var items = [("error", error), ("error_description", description)]
            if let state { items.append(("state", state)) }
            return .redirect(Self.adding(items, to: target))
        }
        if let repeated = query.repeated(among: parameters).first {
            return fail("invalid_request", "The parameter \(repeated) is sent more than once.")
        }
        guard let responseType = query.nonEmpty("response_type") else {
            return fail("invalid_request", "The parameter response_type is missing.")
        }
        guard responseType == "code" else {
            return fail("unsupported_response_type", "Only response_type=code is supported.")
        }
        guard client.grantType == "authorization_code" else {
            return fail("unauthorized_client", "Client \(clientID) may not use the authorization code grant.")
        }
        guard let challenge = query.nonEmpty("code_challenge") else {
            return fail("invalid_request", "PKCE is required: the parameter code_challenge is missing.")
        }
        guard query["code_challenge_method"] == "S256" else {
            return fail("invalid_request", "PKCE needs code_challenge_method=S256.")
        }
        guard PKCE.isWellFormed(challenge) else {
            return fail("invalid_request", "The code_challenge is not a base64url SHA-256 value.")
        }
        let browser = request.cookies[Self.authorizeCookie].flatMap { $0.isEmpty ? nil : $0 } ?? RandomToken.make()
        let transaction = AuthState.AuthorizationTransaction(
            application: client.application, client: client.id, redirectURI: target, redirectGiven: redirect != nil,
            state: state, challenge: challenge, scope: query.nonEmpty("scope") ?? Self.defaultScope, browser: browser,
            expires: now.addingTimeInterval(AuthState.transactionLifetime.timeInterval))
        return loginForm(transaction, error: nil)
    }

    /// The login form of a new transaction, and the browser cookie it must come back with.
    private mutating func loginForm(_ transaction: AuthState.AuthorizationTransaction, error: String?) -> Answer {
        let id = RandomToken.make(prefix: "tx-")
        auth.authorizations[id] = transaction
        auth.prune(now: now)
        let page = Page.login(
            title: "Log in to \(transaction.application)", action: Self.authorizePath, transaction: id,
            error: error)
        return .page(200, page, headers: Self.noStore + [Cookies.set(Self.authorizeCookie, transaction.browser)])
    }

    /// `POST /oauth2/api/v1/authorize`: the login form sent back. Right credentials redirect with a code; wrong
    /// ones show the form again with a new transaction.
    mutating func authorizeLogin(_ request: RequestFacts) -> Answer {
        guard let id = request.form.nonEmpty("transaction_id"), let transaction = auth.authorizations[id] else {
            return Self.errorPage(400, "The login form has expired or was already sent. Start the login again.")
        }
        auth.authorizations[id] = nil
        guard transaction.expires > now else {
            return Self.errorPage(400, "The login form has expired or was already sent. Start the login again.")
        }
        guard request.cookies[Self.authorizeCookie] == transaction.browser else {
            return Self.errorPage(400, "The login form came back without the cookie of the browser it was shown in.")
        }
        guard let name = request.form["username"], let password = request.form["password"],
            let user = user(named: name), let expected = user.password, Secrets.equal(expected, password)
        else {
            return loginForm(transaction, error: "The user name or password is wrong.")
        }
        var items: [(String, String)]
        if user.mayUse(transaction.application) {
            let code = RandomToken.make(prefix: "ac-")
            auth.codes[code] = AuthState.IssuedCode(
                application: transaction.application, client: transaction.client, redirectURI: transaction.redirectURI,
                redirectGiven: transaction.redirectGiven, challenge: transaction.challenge, scope: transaction.scope,
                user: user.email.lowercased(), expires: now.addingTimeInterval(AuthState.codeLifetime.timeInterval),
                family: nil)
            auth.prune(now: now)
            items = [("code", code)]
        } else {
            items = [
                ("error", "access_denied"),
                ("error_description", "User \(user.email) may not use application \(transaction.application)."),
            ]
        }
        if let state = transaction.state { items.append(("state", state)) }
        return .redirect(Self.adding(items, to: transaction.redirectURI), headers: Self.noStore)
    }

    static func errorPage(_ status: Int, _ message: String) -> Answer {
        .page(status, Page.message(title: "Login error", message))
    }

    // MARK: Token

    /// `POST /oauth2/api/v1/token`: the authorization code, refresh token and client credentials grants.
    mutating func token(_ request: RequestFacts) -> Answer {
        do throws(OAuthError) {
            guard request.isForm else {
                throw OAuthError("invalid_request", "The token request must be application/x-www-form-urlencoded.")
            }
            let form = request.form
            let names = [
                "grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "scope", "client_id",
                "client_secret",
            ]
            if let repeated = form.repeated(among: names).first {
                throw OAuthError("invalid_request", "The parameter \(repeated) is sent more than once.")
            }
            guard let grant = form.nonEmpty("grant_type") else {
                throw OAuthError("invalid_request", "The parameter grant_type is missing.")
            }
            let client = try authenticateClient(request)
            let json: JSONValue
            switch grant {
            case "authorization_code": json = try redeemCode(form, client: client)
            case "refresh_token": json = try refresh(form, client: client)
            case "client_credentials": json = try clientCredentials(form, client: client)
            default:
                throw OAuthError("unsupported_grant_type", "The grant type \(grant) is not supported.")
            }
            return Answer(status: 200, headers: Self.noStore, json: json)
        } catch {
            return error.answer
        }
    }

    /// The client a token or revocation request comes from: `Authorization: Basic` or `client_id` (and
    /// `client_secret`) in the form. A client with a secret must send it.
    private func authenticateClient(_ request: RequestFacts) throws(OAuthError) -> OAuthClient {
        var id = request.form.nonEmpty("client_id")
        // An empty secret is none: public clients often send `client_id:` as Basic credentials.
        var secret = request.form.nonEmpty("client_secret")
        var sentAs = secret == nil ? nil : "client_secret_post"
        if case .basic(let user, let password)? = AuthorizationHeader(request.authorization) {
            // RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
            let basicID = FormFields.decode(user)
            guard secret == nil else {
                throw OAuthError("invalid_request", "The client authenticates twice: Basic and client_secret.")
            }
            guard id == nil || id == basicID else {
                throw OAuthError("invalid_request", "The client_id differs from the Basic credentials' client.")
            }
            id = basicID
            secret = password.isEmpty ? nil : FormFields.decode(password)
            sentAs = secret == nil ? nil : "client_secret_basic"
        }
        guard let id else {
            throw OAuthError("invalid_client", "The request names no client (client_id or Authorization: Basic).")
        }
        guard let client = oauthClient(id) else {
            throw OAuthError("invalid_client", "No OAuth 2.0 client \(id) is registered on the backend.")
        }
        if let required = client.authenticationMethod, let sentAs, sentAs != required {
            throw OAuthError(
                "invalid_client",
                "Client \(id) authenticates with \(required), not \(sentAs) (RFC 6749 §2.3.1).")
        }
        switch (client.secret, secret) {
        case (nil, nil): return client
        case (let expected?, let sent?) where Secrets.equal(expected, sent): return client
        case (nil, _?): throw OAuthError("invalid_client", "Client \(id) is public: it has no secret to send.")
        default: throw OAuthError("invalid_client", "The client secret of \(id) is missing or wrong.")
        }
    }

    private mutating func redeemCode(_ form: FormFields, client: OAuthClient) throws(OAuthError) -> JSONValue {
        guard client.grantType == "authorization_code" else {
            throw OAuthError("unauthorized_client", "Client \(client.id) may not use the authorization code grant.")
        }
        guard let code = form.nonEmpty("code") else {
            throw OAuthError("invalid_request", "The parameter code is missing.")
        }
        guard let verifier = form.nonEmpty("code_verifier") else {
            throw OAuthError("invalid_request", "The parameter code_verifier is missing (PKCE is required).")
        }
        guard let issued = auth.codes[code], issued.client == client.id else {
            throw OAuthError("invalid_grant", "The authorization code is unknown or was issued to another client.")
        }
        if let family = issued.family {
            // A code used twice: what the first use got is revoked as well (RFC 6749 §4.1.2).
            auth.revokeFamily(family, now: now)
            throw OAuthError("invalid_grant", "The authorization code was already used; its tokens are revoked.")
        }
        guard issued.expires > now else {
            auth.codes[code] = nil
            throw OAuthError("invalid_grant", "The authorization code expired.")
        }
        if issued.redirectGiven || form["redirect_uri"] != nil {
            guard form["redirect_uri"] == issued.redirectURI else {
                throw OAuthError("invalid_grant", "The redirect_uri differs from the one of the authorization request.")
            }
        }
        guard PKCE.verify(verifier: verifier, challenge: issued.challenge) else {
            throw OAuthError("invalid_grant", "The code_verifier does not match the code_challenge.")
        }
        guard let app = data.application(issued.application) else {
            throw OAuthError("invalid_grant", "The application of the authorization code is gone.")
        }
        let family = TokenClaims.newID()
        auth.codes[code]?.family = family
        let tokens = auth.issueTokens(
            application: app.id, client: client.id, user: issued.user, scope: issued.scope, family: family,
            generation: 0, lifetime: app.tokenLifetime, now: now)
        return Self.tokenJSON(tokens, lifetime: app.tokenLifetime, scope: issued.scope)
    }

    private mutating func refresh(_ form: FormFields, client: OAuthClient) throws(OAuthError) -> JSONValue {
        guard let token = form.nonEmpty("refresh_token") else {
            throw OAuthError("invalid_request", "The parameter refresh_token is missing.")
        }
        guard let issued = auth.verified(token, as: .refresh), issued.client == client.id,
            let family = issued.family, let generation = issued.generation, let email = issued.user,
            let application = issued.application
        else {
            throw OAuthError("invalid_grant", "The refresh token is unknown or was issued to another client.")
        }
        guard !auth.isRevoked(issued) else {
            throw OAuthError("invalid_grant", "The refresh token was revoked.")
        }
        guard issued.expiryDate > now else {
            throw OAuthError("invalid_grant", "The refresh token expired.")
        }
        if let newest = auth.generations[family]?.newest, generation < newest {
            // Reuse of a rotated token means it leaked: the whole login is revoked. Only this emulator knows which
            // generation is the newest; a new one accepts the first it is sent.
            auth.revokeFamily(family, now: now)
            throw OAuthError(
                "invalid_grant", "The refresh token was already used; every token of its login is revoked.")
        }
        let granted = issued.scope ?? Self.defaultScope
        var scope = granted
        if let requested = form.nonEmpty("scope") {
            let granted = Set(granted.split(separator: " "))
            guard Set(requested.split(separator: " ")).isSubset(of: granted) else {
                throw OAuthError("invalid_scope", "The requested scope exceeds the scope granted at login.")
            }
            scope = requested
        }
        guard let app = data.application(application), let user = data.user(email: email), user.mayUse(app.id) else {
            auth.revokeFamily(family, now: now)
            throw OAuthError("invalid_grant", "The refresh token's user may no longer use the application.")
        }
        let tokens = auth.issueTokens(
            application: app.id, client: client.id, user: email, scope: scope, family: family,
            generation: generation + 1, lifetime: app.tokenLifetime, now: now)
        return Self.tokenJSON(tokens, lifetime: app.tokenLifetime, scope: scope)
    }

    private mutating func clientCredentials(_ form: FormFields, client: OAuthClient) throws(OAuthError) -> JSONValue {
        guard client.grantType == "client_credentials", client.secret != nil else {
            throw OAuthError("unauthorized_client", "Client \(client.id) may not use the client credentials grant.")
        }
        guard let app = data.application(client.application) else {
            throw OAuthError("unauthorized_client", "The application of client \(client.id) is gone.")
        }
        let scope = form.nonEmpty("scope") ?? Self.defaultScope
        let tokens = auth.issueTokens(
            application: app.id, client: client.id, user: nil, scope: scope, family: nil, generation: 0,
            lifetime: app.tokenLifetime, now: now)
        return Self.tokenJSON(tokens, lifetime: app.tokenLifetime, scope: scope)
    }

    private static func tokenJSON(
        _ tokens: (access: String, refresh: String?), lifetime: Duration, scope: String
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("access_token", .string(tokens.access)),
            ("token_type", "Bearer"),
            ("expires_in", .int(Int(lifetime.timeInterval.rounded(.down)))),
        ]
        if let refresh = tokens.refresh { members.append(("refresh_token", .string(refresh))) }
        members.append(("scope", .string(scope)))
        return .object(members)
    }

    // MARK: Revoke

    /// `POST /oauth2/api/v1/revoke` (RFC 7009): 200 whether or not the token was known; a refresh token takes its
    /// whole login with it.
    mutating func revoke(_ request: RequestFacts) -> Answer {
        do throws(OAuthError) {
            guard request.isForm else {
                throw OAuthError("invalid_request", "The revocation request must be application/x-www-form-urlencoded.")
            }
            guard let token = request.form.nonEmpty("token") else {
                throw OAuthError("invalid_request", "The parameter token is missing.")
            }
            let client = try authenticateClient(request)
            if let issued = auth.signer.verify(token), issued.kind != .session {
                guard issued.client == client.id else {
                    throw OAuthError("invalid_grant", "The token was issued to another client.")
                }
                if issued.kind == .refresh, let family = issued.family {
                    auth.revokeFamily(family, now: now)
                } else {
                    auth.revoke(issued, now: now)
                }
            }
            return Answer(status: 200, headers: Self.noStore, body: "")
        } catch {
            return error.answer
        }
    }
}
