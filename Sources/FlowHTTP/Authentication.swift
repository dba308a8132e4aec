import FlowDescriptor
public import FlowVocabulary
public import Foundation
import Synchronization

/// How a backend says "log in first": a status among `statuses` (any status when empty) with header `header`
/// whose value starts with `value` (compared without case; any value when `nil`); with no header, the status
/// alone.
public struct ChallengeTest: Sendable, Hashable, CustomStringConvertible {
    public var statuses: Set<Int>
    public var header: String
    public var value: String?

    public init(statuses: Set<Int>, header: String, value: String?) {
        self.statuses = statuses
        self.header = header
        self.value = value
    }

    /// Whether `response` carries this challenge.
    public func matches(_ response: HTTPResponse) -> Bool {
        guard statuses.isEmpty || statuses.contains(response.status) else { return false }
        // A backend that marks its challenge by the status alone (a bare 401).
        if header.isEmpty { return !statuses.isEmpty }
        let values = response.headers(named: header)
        guard let value else { return !values.isEmpty }
        return values.contains { $0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix(value.lowercased()) }
    }

    public var description: String {
        let status = statuses.isEmpty ? "any status" : statuses.sorted().map(String.init).joined(separator: " or ")
        return header.isEmpty ? status : "\(status) with `\(header)\(value.map { ": \($0)" } ?? "")`"
    }

    /// HTTP Basic: 401 with `WWW-Authenticate: Basic`.
    public static let basic = [ChallengeTest(statuses: [401], header: "WWW-Authenticate", value: "Basic")]
    /// OAuth 2.0: 401 with `WWW-Authenticate: Bearer`, or 401 or 400 with `X-SMP-AUTHENTICATION-STATUS: 1000`.
    public static let oauth2 = [
        ChallengeTest(statuses: [401], header: "WWW-Authenticate", value: "Bearer"),
        ChallengeTest(statuses: [401, 400], header: "X-SMP-AUTHENTICATION-STATUS", value: "1000"),
    ]
    /// SAML 2.0: a login page (200, or a 302 to it) with `com.sap.cloud.security.login: login-request`.
    public static let saml = [
        ChallengeTest(statuses: [200, 302, 303], header: "com.sap.cloud.security.login", value: "login-request")
    ]
    /// One-time passcode: `x-smp-authentication: otp-challenge` on a 200 or on the redirect to the form.
    public static let otp = [
        ChallengeTest(statuses: [200, 302, 303, 307], header: "x-smp-authentication", value: "otp-challenge")
    ]
}

/// Logs a session in when a backend challenges it, the SDK's authentication observer.
///
/// The session decorates each request to ``origin`` with the current credentials, checks every answer from that
/// origin (redirects included) against ``challenges``, and on a match runs ``authenticate(after:for:transport:)``
/// once (requests challenged meanwhile wait for that login) before it sends the original request again.
public protocol Authenticator: Sendable {
    /// The method: `basic`, `oauth2`, `saml`, `otp`, `certificate`.
    var method: AuthenticationMethod { get }
    /// The `scheme://host:port` whose requests carry these credentials and whose challenges this answers.
    var origin: String { get }
    var challenges: [ChallengeTest] { get }
    /// Whether this answers with a client certificate (a user identity): it then also answers a TLS handshake the
    /// server ended for want of one, and a request counts the identities it obtains apart from its logins.
    var presentsClientIdentity: Bool { get }
    /// Whether `response` is a challenge this answers: by default, one that matches one of ``challenges``. Judged
    /// by status and headers: a streamed answer is judged by its head, before its body is read.
    func isChallenge(_ response: HTTPResponse) -> Bool
    /// Adds the current credentials (a header) to a request for ``origin``.
    func decorate(_ request: inout HTTPRequest) async throws(HTTPError)
    /// Logs in, or refreshes, after `challenge` answered `request`. Its own requests go through `transport`,
    /// which has the session's cookies and default headers but no authenticators, so a login never meets itself.
    func authenticate(
        after challenge: HTTPResponse, for request: HTTPRequest, transport: HTTPTransport) async throws(HTTPError)
}

extension Authenticator {
    public var presentsClientIdentity: Bool { false }

    public func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {}

    public func isChallenge(_ response: HTTPResponse) -> Bool {
        challenges.contains { $0.matches(response) }
    }
}

/// The session without its authenticators and observers: what login traffic goes through.
public struct HTTPTransport: Sendable {
    let session: HTTPSession

    /// Sends `request` with the session's cookies and default headers, following redirects while `redirects`
    /// says so; no authenticator sees it.
    public func send(
        _ request: HTTPRequest, redirects: @Sendable (URL, URL) -> RedirectDecision = { _, _ in .follow }
    ) async throws(HTTPError) -> HTTPResponse {
        try await session.send(request, redirects: redirects, authenticated: false)
    }

    /// Sends `request` as ``send(_:redirects:)`` does, with the session's CSRF token when it modifies the protected
    /// origin (see ``HTTPSession/protectWithCSRFToken(fetchURL:)``): for a logout, which no login may answer but
    /// which the backend protects like any modifying request.
    public func sendWithCSRFToken(
        _ request: HTTPRequest, redirects: @Sendable (URL, URL) -> RedirectDecision = { _, _ in .follow }
    ) async throws(HTTPError) -> HTTPResponse {
        try await session.send(request, redirects: redirects, authenticated: false, csrf: true)
    }

    /// The session's cookie jar.
    public var cookies: CookieJar { session.cookies }

    /// `url` as the session sends it (see ``HTTPSession/rewritten(_:)``): what a browser is given to open.
    public func rewritten(_ url: URL) -> URL { session.rewritten(url) }
}

/// A registered authenticator, for ``HTTPSession/removeAuthenticator(_:)``.
public struct AuthenticatorRegistration: Sendable, Hashable {
    let id: UInt64
}

/// One authenticator on a session, with its login state: a generation that each successful login moves on, and
/// the login under way, which every request challenged meanwhile waits for instead of starting its own.
final class AuthenticatorSlot: Sendable {
    typealias Login = Task<Result<Void, HTTPError>, Never>

    let id: UInt64
    let authenticator: any Authenticator
    /// The authenticator's origin as the session's rewritten requests have it.
    let origin: String
    private let state = Mutex<(generation: Int, login: Login?)>((0, nil))

    init(id: UInt64, authenticator: any Authenticator, origin: String) {
        self.id = id
        self.authenticator = authenticator
        self.origin = origin
    }

    /// How many logins have succeeded: a request notes it when decorated.
    var generation: Int { state.withLock { $0.generation } }

    /// Logs in after a challenge to a request decorated at generation `seen`. When a login finished since then,
    /// the request is simply resent; when one is under way, this waits for it.
    func authenticate(
        seen: Int, challenge: HTTPResponse, request: HTTPRequest, transport: HTTPTransport
    ) async throws(HTTPError) {
        let login: Login? = state.withLock { state -> Login? in
            if state.generation != seen { return nil }
            if let login = state.login { return login }
            let authenticator = authenticator
            let login = Login { [self] in
                let result: Result<Void, HTTPError>
                do throws(HTTPError) {
                    try await authenticator.authenticate(after: challenge, for: request, transport: transport)
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                self.finish(result)
                return result
            }
            state.login = login
            return login
        }
        guard let login else { return }
        let result = await withTaskCancellationHandler {
            await login.value
        } onCancel: {
            login.cancel()
        }
        try result.get()
    }

    private func finish(_ result: Result<Void, HTTPError>) {
        state.withLock { state in
            state.login = nil
            if case .success = result { state.generation += 1 }
        }
    }
}
