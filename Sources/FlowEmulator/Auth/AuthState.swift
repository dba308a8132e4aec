internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation

/// The emulator's time: a base time source plus an offset that tests and the admin API move forward, so that
/// token expiry and passcodes are tested without sleeping.
struct EmulatorClock: Sendable {
    var base: @Sendable () -> Date = { Date() }
    var offset: Duration = .zero

    var now: Date { base().addingTimeInterval(offset.timeInterval) }
}

/// What the emulator remembers between requests: login transactions, authorization codes and SAML assertions (they
/// live minutes), and what ended tokens and sessions early. Tokens and session cookies themselves are signed values
/// (``TokenSigner``) that carry their own claims, so any emulator with the same key accepts them; only their
/// revocation is kept here, in memory, and is forgotten when the emulator is made anew. Changed only under the
/// emulator's lock, by ``Backend``.
struct AuthState: Sendable {
    /// How long a login form (an authorize, IdP or OTP transaction) may be sent back.
    static let transactionLifetime = Duration.seconds(600)
    /// How long an authorization code may be redeemed.
    static let codeLifetime = Duration.seconds(300)
    /// How long a SAML response may be posted to the launcher.
    static let assertionLifetime = Duration.seconds(300)
    /// How long a refresh token may be used: 30 days.
    static let refreshLifetime = Duration.seconds(30 * 86_400)
    /// How long a cookie session lasts: 24 hours.
    static let sessionLifetime = Duration.seconds(86_400)
    /// The most entries of one kind kept; past it the expired ones go, then the oldest.
    static let limit = 10_000

    /// Signs and checks tokens, session cookies and SAML responses with the data's key.
    var signer = TokenSigner(key: .builtIn)

    var authorizations: [String: AuthorizationTransaction] = [:]
    var codes: [String: IssuedCode] = [:]
    var forms: [String: FormTransaction] = [:]
    /// Pending SAML logins by relay state, with when they expire.
    var samlRequests: [String: Date] = [:]
    /// The `ID` of the AuthnRequest sent to an external identity provider, by relay state: its response must answer
    /// it (`InResponseTo`).
    var samlRequestIDs: [String: String] = [:]
    var assertions: [String: Assertion] = [:]

    /// Access tokens revoked one by one and sessions ended, by claims ID, until they would have expired anyway.
    var revoked: [String: Date] = [:]
    /// Revoked token families, until every token of theirs would have expired anyway.
    var revokedFamilies: [String: Date] = [:]
    /// The newest refresh-token generation of each family issued here: an older one sent again was rotated.
    var generations: [String: Generation] = [:]
    /// Sessions that passed OTP here, by claims ID: their older cookies, made before, count as passed too.
    var otpPassed: [String: Date] = [:]
    /// Certificates retired at the certificate service, by serial number (hex), until they expire anyway.
    var retiredCertificates: [String: Date] = [:]
    /// CSRF tokens handed out (`X-CSRF-Token: Fetch`), with when they were: the newest ``limit`` are taken.
    var csrfTokens: [String: Date] = [:]
    /// Secure Login Server logins in progress, by login ID.
    var slsLogins: [String: SLSLogin] = [:]

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

    /// The newest refresh generation of a family, and until when any of its tokens may be in use.
    struct Generation: Sendable {
        var newest: Int
        var until: Date
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

    // MARK: Tokens

    /// Issues an access token, and for a user's login a refresh token of `family` at `generation`.
    mutating func issueTokens(
        application: String, client: String, user: String?, scope: String, family: String?, generation: Int,
        lifetime: Duration, now: Date
    ) -> (access: String, refresh: String?) {
        let access = signer.sign(
            TokenClaims(
                kind: .access, id: TokenClaims.newID(), application: application, user: user, client: client,
                expires: TokenClaims.seconds(now.addingTimeInterval(lifetime.timeInterval)), family: family,
                scope: scope))
        var refresh: String?
        if let user, let family {
            let until = now.addingTimeInterval(Self.refreshLifetime.timeInterval)
            refresh = signer.sign(
                TokenClaims(
                    kind: .refresh, id: TokenClaims.newID(), application: application, user: user, client: client,
                    expires: TokenClaims.seconds(until), family: family, generation: generation, scope: scope))
            generations[family] = Generation(newest: generation, until: until)
        }
        prune(now: now)
        return (access, refresh)
    }

    /// The claims of `value` when it is a `kind` value signed with the emulator's key; expiry, revocation and the
    /// application are the caller's to check.
    func verified(_ value: String, as kind: TokenClaims.Kind) -> TokenClaims? {
        guard let claims = signer.verify(value), claims.kind == kind else { return nil }
        return claims
    }

    /// Whether the token or session was revoked or ended here, or its family was.
    func isRevoked(_ claims: TokenClaims) -> Bool {
        revoked[claims.id] != nil || claims.family.map { revokedFamilies[$0] != nil } == true
    }

    /// Revokes one token, or ends one session, until it would have expired anyway.
    mutating func revoke(_ claims: TokenClaims, now: Date) {
        revoked[claims.id] = claims.expiryDate
        prune(now: now)
    }

    /// Revokes every token of a login: its access tokens and refresh tokens are refused from now on.
    mutating func revokeFamily(_ family: String, now: Date) {
        revokedFamilies[family] = now.addingTimeInterval(Self.refreshLifetime.timeInterval)
        generations[family] = nil
        prune(now: now)
    }

    // MARK: Sessions

    /// A new session cookie value; `id` keeps the session of an older cookie (when OTP was passed).
    mutating func issueSession(
        user: String, saml: Bool, otpPassed: Bool, id: String? = nil, expires: Int64? = nil, now: Date
    ) -> String {
        let expiry = expires ?? TokenClaims.seconds(now.addingTimeInterval(Self.sessionLifetime.timeInterval))
        return signer.sign(
            TokenClaims(
                kind: .session, id: id ?? TokenClaims.newID(), user: user, expires: expiry, otpPassed: otpPassed,
                saml: saml))
    }

    /// The claims of a session cookie that is signed with the emulator's key, has not expired and was not ended.
    func session(_ value: String?, now: Date) -> TokenClaims? {
        guard let value, let claims = verified(value, as: .session), claims.user != nil, claims.expiryDate > now,
            !isRevoked(claims)
        else { return nil }
        return claims
    }

    /// Whether the session passed OTP: its cookie says so, or it passed here after the cookie was made.
    func hasPassedOTP(_ session: TokenClaims) -> Bool {
        session.otpPassed == true || otpPassed[session.id] != nil
    }

    // MARK: Bounds

    /// Keeps every table within ``limit``: expired entries go first, then the oldest.
    mutating func prune(now: Date) {
        Self.bound(&authorizations, now: now) { $0.expires }
        Self.bound(&codes, now: now) { $0.expires }
        Self.bound(&forms, now: now) { $0.expires }
        Self.bound(&assertions, now: now) { $0.expires }
        Self.bound(&samlRequests, now: now) { $0 }
        samlRequestIDs = samlRequestIDs.filter { samlRequests[$0.key] != nil }
        Self.bound(&revoked, now: now) { $0 }
        Self.bound(&revokedFamilies, now: now) { $0 }
        Self.bound(&generations, now: now) { $0.until }
        Self.bound(&otpPassed, now: now) { $0 }
        Self.bound(&retiredCertificates, now: now) { $0 }
        Self.bound(&slsLogins, now: now) { $0.expires }
    }
    private static func bound<Value>(_ table: inout [String: Value], now: Date, date: (Value) -> Date) {
        guard table.count > limit else { return }
        table = table.filter { date($0.value) > now }
        guard table.count > limit else { return }
        let keep = table.sorted { date($0.value) > date($1.value) }.prefix(limit)
        table = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
