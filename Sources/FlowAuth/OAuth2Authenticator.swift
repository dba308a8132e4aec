import FlowDescriptor
public import FlowHTTP
public import FlowVocabulary
public import Foundation
import Synchronization

/// Answers OAuth 2.0 challenges: sends `Authorization: Bearer` with every request to its origin, refreshes the
/// access token shortly before it expires and when a challenge comes, and logs in again when the refresh token
/// is refused. One refresh runs at a time; a rotated refresh token is handed to ``onTokens`` at once, because a
/// server that rotates revokes the whole family when an old one is used again.
public final class OAuth2Authenticator: Authenticator {
    /// How new tokens are had when there are none, or the refresh token is refused.
    public enum Grant: Sendable {
        /// A person logs in through a presenter; the redirect URL is the client's registered one.
        case authorizationCode(presenter: any WebPresenter, redirect: URL)
        /// The client authenticates as itself with its secret.
        case clientCredentials
    }

    public let method = AuthenticationMethod.oauth2
    public let origin: String
    public let challenges: [ChallengeTest]
    public let client: OAuth2Client
    public let grant: Grant
    /// Refresh this long before the access token expires.
    public let refreshMargin: TimeInterval
    /// Says why a new login cannot happen now (no person to log in), or `nil` when it can.
    private let loginBlocked: @Sendable () -> HTTPError?
    /// Receives every new set of tokens, to keep them at once (the encrypted store) and mask them in output.
    private let onTokens: @Sendable (OAuth2Tokens) -> Void
    /// Checks the user after a new login (the role service's `Me` against the onboarded user).
    private let afterLogin: @Sendable (OAuth2Tokens, HTTPTransport) async throws(HTTPError) -> Void
    private let transportForRefresh: HTTPTransport
    private let state: Mutex<(tokens: OAuth2Tokens?, refresh: Task<Result<OAuth2Tokens, HTTPError>, Never>?)>
    private let counts = Mutex((logins: 0, refreshes: 0))

    public init(
        origin: String, challenges: [ChallengeTest] = ChallengeTest.oauth2, client: OAuth2Client, grant: Grant,
        tokens: OAuth2Tokens?, transport: HTTPTransport, refreshMargin: TimeInterval = 60,
        loginBlocked: @escaping @Sendable () -> HTTPError? = { nil },
        onTokens: @escaping @Sendable (OAuth2Tokens) -> Void,
        afterLogin: @escaping @Sendable (OAuth2Tokens, HTTPTransport) async throws(HTTPError) -> Void = { _, _ in }
    ) {
        self.origin = origin
        self.challenges = challenges
        self.client = client
        self.grant = grant
        self.loginBlocked = loginBlocked
        self.onTokens = onTokens
        self.afterLogin = afterLogin
        self.transportForRefresh = transport
        self.refreshMargin = refreshMargin
        state = Mutex((tokens, nil))
    }

    /// The current tokens.
    public var tokens: OAuth2Tokens? { state.withLock { $0.tokens } }
    /// How many logins and refreshes ran.
    public var activity: (logins: Int, refreshes: Int) { counts.withLock { $0 } }

    public func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        guard var tokens = state.withLock({ $0.tokens }) else { return }
        if tokens.refreshToken != nil, tokens.expires(within: refreshMargin, at: client.now()) {
            // Refreshed before it expires; a refused refresh is left to the challenge that follows.
            if let fresh = try? await refreshOnce(from: tokens) { tokens = fresh }
        }
        request.setHeader("Authorization", "Bearer \(tokens.accessToken.revealed)")
    }

    public func authenticate(
        after challenge: HTTPResponse, for request: HTTPRequest, transport: HTTPTransport
    ) async throws(HTTPError) {
        let current = state.withLock { $0.tokens }
        if let current {
            // Another request refreshed or logged in since this one was sent: send it again as it is.
            if let sent = request.header("Authorization"), sent != "Bearer \(current.accessToken.revealed)" { return }
            if current.refreshToken != nil {
                do {
                    _ = try await refreshOnce(from: current)
                    return
                } catch  where !Self.refusesRefresh(error) {
                    throw error
                } catch {
                    state.withLock { $0.tokens = nil }
                }
            }
        }
        try await login(transport: transport, refreshRefused: current?.refreshToken != nil)
    }

    /// Whether a refresh failure means the refresh token is no good (a new login is needed), not a transport
    /// problem.
    static func refusesRefresh(_ error: HTTPError) -> Bool {
        [.oauth2("invalid_grant"), .oauth2("invalid_token"), .oauth2("unauthorized_client"), .oauth2TokenFailed]
            .contains(error.code)
    }

    /// Logs in afresh with the grant.
    public func login(transport: HTTPTransport, refreshRefused: Bool = false) async throws(HTTPError) {
        let tokens: OAuth2Tokens
        switch grant {
        case .clientCredentials:
            tokens = try await client.clientCredentials(transport: transport)
        case .authorizationCode(let presenter, let registered):
            if let blocked = loginBlocked() {
                guard refreshRefused else { throw blocked }
                throw HTTPError(
                    blocked.code,
                    "the refresh token was refused (the server revoked it, or it expired), and a new login "
                        + "cannot happen: \(blocked.message)", transient: false)
            }
            // The browser is given the URLs the session would send to: the registered redirect and the
            // authorization endpoint as the session's rewrite (the emulator) has them.
            let redirect = try await presenter.prepare(redirect: transport.rewritten(registered))
            let authorization = try client.authorizationRequest(redirect: redirect)
            let reached = try await presenter.present(
                transport.rewritten(authorization.url), finish: LoginFinish(redirect, anyOf: ["code", "error"]),
                transport: transport)
            let code = try client.code(from: reached, for: authorization)
            tokens = try await client.exchange(code: code, for: authorization, transport: transport)
            try await client.verifyIDToken(of: tokens, nonce: authorization.nonce, transport: transport)
        }
        counts.withLock { $0.logins += 1 }
        onTokens(tokens)
        try await afterLogin(tokens, transport)
        state.withLock { $0.tokens = tokens }
    }

    /// Refreshes once, or waits for the refresh under way.
    private func refreshOnce(from tokens: OAuth2Tokens) async throws(HTTPError) -> OAuth2Tokens {
        let task = state.withLock { locked -> Task<Result<OAuth2Tokens, HTTPError>, Never> in
            if let running = locked.refresh { return running }
            if let current = locked.tokens, current.accessToken != tokens.accessToken {
                return Task { .success(current) }
            }
            let client = client
            let transport = transportForRefresh
            let task = Task { [self] in
                let result: Result<OAuth2Tokens, HTTPError>
                do throws(HTTPError) {
                    result = .success(try await client.refresh(tokens, transport: transport))
                } catch {
                    result = .failure(error)
                }
                if case .success(let fresh) = result {
                    counts.withLock { $0.refreshes += 1 }
                    onTokens(fresh)
                }
                state.withLock { state in
                    state.refresh = nil
                    if case .success(let fresh) = result { state.tokens = fresh }
                }
                return result
            }
            locked.refresh = task
            return task
        }
        return try await task.value.get()
    }

    /// Revokes the refresh and access tokens where the server offers revocation, and forgets them.
    /// - Returns: whether the server revoked them (`false`: it offers no revocation, or there were none).
    @discardableResult
    public func revoke(transport: HTTPTransport) async throws(HTTPError) -> Bool {
        guard let tokens = state.withLock({ $0.tokens }) else { return false }
        var revoked = false
        if let refresh = tokens.refreshToken {
            revoked = try await client.revoke(refresh, hint: "refresh_token", transport: transport)
        }
        revoked = try await client.revoke(tokens.accessToken, hint: "access_token", transport: transport) || revoked
        state.withLock { $0.tokens = nil }
        return revoked
    }
}

/// Answers HTTP Basic challenges with a user name and password, asked for when the first challenge comes and
/// asked again (on a terminal) when the backend refuses them.
public final class BasicAuthenticator: Authenticator {
    public struct Credentials: Sendable, Hashable, Codable {
        public var username: String
        public var password: Secret

        public init(username: String, password: Secret) {
            self.username = username
            self.password = password
        }

        private enum CodingKeys: String, CodingKey {
            case username, password
        }

        /// Read as the sealed store wrote it: the password as a plain string.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            username = try container.decode(String.self, forKey: .username)
            password = Secret(try container.decode(String.self, forKey: .password))
        }

        /// Written revealed, for the sealed store only.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(username, forKey: .username)
            try container.encode(password.revealed, forKey: .password)
        }
    }

    public let method = AuthenticationMethod.basic
    public let origin: String
    public let challenges: [ChallengeTest]
    /// Supplies credentials; `refused` holds the ones the backend just refused, if any.
    private let ask: @Sendable (_ refused: Credentials?) throws(HTTPError) -> Credentials
    /// Runs with the new credentials' `Authorization` header before they are used (the user check); a failure
    /// leaves the old credentials in place.
    private let afterLogin: @Sendable (_ authorization: String, HTTPTransport) async throws(HTTPError) -> Void
    private let credentials: Mutex<Credentials?>

    public init(
        origin: String, challenges: [ChallengeTest] = ChallengeTest.basic, credentials: Credentials?,
        afterLogin: @escaping @Sendable (_ authorization: String, HTTPTransport) async throws(HTTPError) -> Void = {
            _, _ in
        },
        ask: @escaping @Sendable (_ refused: Credentials?) throws(HTTPError) -> Credentials
    ) {
        self.origin = origin
        self.challenges = challenges
        self.ask = ask
        self.afterLogin = afterLogin
        self.credentials = Mutex(credentials)
    }

    /// The credentials the next request sends.
    public var current: Credentials? { credentials.withLock { $0 } }

    public func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        guard let credentials = credentials.withLock({ $0 }) else { return }
        request.setHeader("Authorization", Self.authorization(credentials))
    }

    public func authenticate(
        after challenge: HTTPResponse, for request: HTTPRequest, transport: HTTPTransport
    ) async throws(HTTPError) {
        let sent = request.header("Authorization") != nil ? credentials.withLock { $0 } : nil
        let fresh = try ask(sent)
        try await afterLogin(Self.authorization(fresh), transport)
        credentials.withLock { $0 = fresh }
    }

    /// The `Authorization` header value for `credentials`.
    private static func authorization(_ credentials: Credentials) -> String {
        "Basic " + Data("\(credentials.username):\(credentials.password.revealed)".utf8).base64EncodedString()
    }

    /// Forgets the credentials.
    public func forget() {
        credentials.withLock { $0 = nil }
    }
}
