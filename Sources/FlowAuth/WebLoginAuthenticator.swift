import FlowDescriptor
public import FlowHTTP
public import FlowVocabulary
public import Foundation
import Synchronization

/// Answers a challenge with a web login whose result is the session's cookies: SAML 2.0 (the launcher, the
/// identity provider's login, the POST binding back, the finish endpoint) and the OTP form. The presenter drives
/// the pages through the plain transport, so the cookies the backend sets land in the session's jar, and the
/// original request is sent again with them.
public final class WebLoginAuthenticator: Authenticator {
    public let method: AuthenticationMethod
    public let origin: String
    public let challenges: [ChallengeTest]
    /// Where the login starts, given the challenge (the launcher; the OTP form the challenge points at).
    private let start: @Sendable (HTTPResponse) -> URL
    private let finish: LoginFinish
    private let presenter: any WebPresenter
    /// Runs after each login (the user check).
    private let afterLogin: @Sendable (HTTPTransport) async throws(HTTPError) -> Void
    private let count = Mutex(0)

    public init(
        method: AuthenticationMethod, origin: String, challenges: [ChallengeTest], finish: LoginFinish,
        presenter: any WebPresenter,
        start: @escaping @Sendable (HTTPResponse) -> URL,
        afterLogin: @escaping @Sendable (HTTPTransport) async throws(HTTPError) -> Void = { _ in }
    ) {
        self.method = method
        self.origin = origin
        self.challenges = challenges
        self.finish = finish
        self.presenter = presenter
        self.start = start
        self.afterLogin = afterLogin
    }

    /// How many logins ran.
    public var logins: Int { count.withLock { $0 } }

    public func authenticate(
        after challenge: HTTPResponse, for request: HTTPRequest, transport: HTTPTransport
    ) async throws(HTTPError) {
        // The pages are shown where the session sends its requests (the emulator), and end there.
        let finish = LoginFinish(transport.rewritten(finish.url), anyOf: finish.anyOf)
        _ = try await presenter.present(transport.rewritten(start(challenge)), finish: finish, transport: transport)
        count.withLock { $0 += 1 }
        try await afterLogin(transport)
    }
}
