internal import Foundation

/// The emulator's time: a base time source plus an offset that tests and the admin API move forward, so that
/// token expiry and passcodes are tested without sleeping.
struct EmulatorClock: Sendable {
    var base: @Sendable () -> Date = { Date() }
    var offset: Duration = .zero

    var now: Date { base().addingTimeInterval(offset.timeInterval) }
}

/// What the emulator has issued and remembers between requests: login transactions, authorization codes, tokens,
/// SAML assertions and cookie sessions. Changed only under the emulator's lock, by ``Backend``.
struct AuthState: Sendable {
    /// How long a login form (an authorize, IdP or OTP transaction) may be sent back.
    static let transactionLifetime = Duration.seconds(600)
    /// How long an authorization code may be redeemed.
    static let codeLifetime = Duration.seconds(300)
    /// How long a SAML response may be posted to the launcher.
    static let assertionLifetime = Duration.seconds(300)
    /// The most entries of one kind kept; past it the expired ones go, then the oldest.
    static let limit = 10_000

    /// The key SAML responses are signed with (HMAC-SHA-256); the emulator makes a new one when it is made.
    var signingKey: [UInt8] = []

    var authorizations: [String: AuthorizationTransaction] = [:]
    var codes: [String: IssuedCode] = [:]
    var accessTokens: [String: AccessToken] = [:]
    var refreshTokens: [String: RefreshToken] = [:]
    var sessions: [String: Session] = [:]
    var forms: [String: FormTransaction] = [:]
    /// Pending SAML logins by relay state, with when they expire.
    var samlRequests: [String: Date] = [:]
    var assertions: [String: Assertion] = [:]

    /// A login in progress at the authorization endpoint: the form was shown, the credentials not yet sent.
    struct AuthorizationTransaction: Sendable {
        var application: String
        var client: String
        /// The `redirect_uri` the codes go to (the registered one when the request named none).
        var redirectURI: String
        /// Whether the request named `redirect_uri` (then the token request must name the same).
        var redirectGiven: Bool
        var state: String?
        var challenge: String
        var scope: String
        /// The value of the browser cookie the form must come back with.
        var browser: String
        var expires: Date
    }

    /// An authorization code, kept after it was redeemed so that a second use revokes what the first one got.
    struct IssuedCode: Sendable {
        var application: String
        var client: String
        var redirectURI: String
        var redirectGiven: Bool
        var challenge: String
        var scope: String
        /// The user's email address.
        var user: String
        var expires: Date
        /// The token family the code was redeemed for; `nil` while it was not.
        var family: String?
    }

    struct AccessToken: Sendable {
        var application: String
        var client: String
        /// The user's email address; `nil` for a client-credentials token.
        var user: String?
        var scope: String
        var expires: Date
        /// The login the token comes from (all tokens of one authorization code); `nil` for client credentials.
        var family: String?
    }

    struct RefreshToken: Sendable {
        enum Status: Sendable { case active, rotated, revoked }

        var application: String
        var client: String
        var user: String
        var scope: String
        var family: String
        var status: Status
        var issued: Date
    }

    /// A cookie session (`JSESSIONID`): a SAML login, and whether OTP was passed.
    struct Session: Sendable {
        /// The user's email address.
        var user: String
        /// Whether the session comes from a SAML login (rather than only carrying OTP for Basic or Bearer).
        var saml: Bool
        var otpPassed: Bool
        var created: Date
    }

    /// A login form shown by the emulated IdP or the OTP form, waiting to be sent back.
    struct FormTransaction: Sendable {
        enum Kind: Sendable, Equatable {
            case samlLogin(relayState: String)
            case otp(session: String)
        }

        var kind: Kind
        var expires: Date
    }

    /// A SAML response the IdP issued, waiting to be posted to the launcher once.
    struct Assertion: Sendable {
        var user: String
        var relayState: String
        var expires: Date
    }

    /// 256 random bits for ``signingKey``.
    static func randomKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    // MARK: Tokens

    /// Issues an access token (and, for a user, a refresh token of `family`).
    mutating func issueTokens(
        application: String, client: String, user: String?, scope: String, family: String?, lifetime: Duration,
        now: Date
    ) -> (access: String, refresh: String?) {
        let access = RandomToken.make(prefix: "at-")
        accessTokens[access] = AccessToken(
            application: application, client: client, user: user, scope: scope,
            expires: now.addingTimeInterval(lifetime.timeInterval), family: family)
        var refresh: String?
        if let user, let family {
            let token = RandomToken.make(prefix: "rt-")
            refreshTokens[token] = RefreshToken(
                application: application, client: client, user: user, scope: scope, family: family, status: .active,
                issued: now)
            refresh = token
        }
        prune(now: now)
        return (access, refresh)
    }

    /// Revokes every token of a login: its access tokens are forgotten, its refresh tokens can no longer be used.
    mutating func revokeFamily(_ family: String) {
        accessTokens = accessTokens.filter { $0.value.family != family }
        for (token, refresh) in refreshTokens where refresh.family == family {
            refreshTokens[token]?.status = .revoked
        }
    }

    // MARK: Bounds

    /// Keeps every table within ``limit``: expired entries go first, then the oldest.
    mutating func prune(now: Date) {
        Self.bound(&authorizations, now: now) { $0.expires }
        Self.bound(&codes, now: now) { $0.expires }
        Self.bound(&accessTokens, now: now) { $0.expires }
        Self.bound(&forms, now: now) { $0.expires }
        Self.bound(&assertions, now: now) { $0.expires }
        Self.bound(&samlRequests, now: now) { $0 }
        Self.bound(&sessions, now: .distantPast) { $0.created }
        Self.bound(&refreshTokens, now: .distantPast) { $0.issued }
    }

    private static func bound<Value>(_ table: inout [String: Value], now: Date, date: (Value) -> Date) {
        guard table.count > limit else { return }
        table = table.filter { date($0.value) > now }
        guard table.count > limit else { return }
        let keep = table.sorted { date($0.value) > date($1.value) }.prefix(limit)
        table = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
