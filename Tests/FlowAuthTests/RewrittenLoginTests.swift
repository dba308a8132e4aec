import FlowAuth
import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import Synchronization
import Testing

/// A presenter that notes what it is given and stops the login there.
private final class RecordingPresenter: WebPresenter {
    let name = "recording"
    let seen = Mutex<(registered: URL?, opened: URL?, finish: URL?)>((nil, nil, nil))

    func prepare(redirect registered: URL) async throws(HTTPError) -> URL {
        seen.withLock { $0.registered = registered }
        return registered
    }

    func present(_ url: URL, finish: LoginFinish, transport: HTTPTransport) async throws(HTTPError) -> URL {
        seen.withLock {
            $0.opened = url
            $0.finish = finish.url
        }
        throw HTTPError(.cancelled, "the test stops the login here", transient: false)
    }
}

/// Under a session rewrite (the emulator), the URLs a login hands to a browser are the session's: the page it
/// opens, the finish it waits for and the redirect URL the login page is given all point where requests go.
@Suite struct RewrittenLoginTests {
    static let target = URL(string: "http://127.0.0.1:4321")!

    static func session() -> HTTPSession {
        HTTPSession(configuration: .init(timeout: .seconds(600), rewrite: URLRewrite(target: target)))
    }

    @Test func aWebLoginOpensAndFinishesWhereTheSessionSends() async throws {
        let session = Self.session()
        let presenter = RecordingPresenter()
        let authenticator = WebLoginAuthenticator(
            method: .saml, origin: "https://hr.backend.invalid:443", challenges: ChallengeTest.saml,
            finish: LoginFinish(URL(string: "https://hr.backend.invalid/SAMLAuthLauncher?finishEndpointParam=x")!),
            presenter: presenter, start: { _ in URL(string: "https://hr.backend.invalid/SAMLAuthLauncher")! })
        let challenge = HTTPResponse(status: 200, headers: [], body: [], url: Self.target)
        await #expect(throws: HTTPError.self) {
            try await authenticator.authenticate(
                after: challenge, for: HTTPRequest(url: Self.target), transport: session.transport)
        }
        await session.shutdown()
        let seen = presenter.seen.withLock { $0 }
        #expect(seen.opened == URL(string: "http://127.0.0.1:4321/SAMLAuthLauncher"))
        #expect(seen.finish == URL(string: "http://127.0.0.1:4321/SAMLAuthLauncher?finishEndpointParam=x"))
    }

    @Test func anOAuthLoginGivesTheLoginPageTheRewrittenRedirect() async throws {
        let session = Self.session()
        let presenter = RecordingPresenter()
        let client = OAuth2Client(
            clientID: "hr-app",
            endpoints: OAuth2Endpoints(
                authorization: URL(string: "https://hr.backend.invalid/oauth2/authorize")!,
                token: URL(string: "https://hr.backend.invalid/oauth2/token")!))
        let authenticator = OAuth2Authenticator(
            origin: "https://hr.backend.invalid:443", client: client,
            grant: .authorizationCode(
                presenter: presenter, redirect: URL(string: "https://hr.backend.invalid/oauth2/callback")!),
            tokens: nil, transport: session.transport, onTokens: { _ in })
        await #expect(throws: HTTPError.self) { try await authenticator.login(transport: session.transport) }
        await session.shutdown()
        let seen = presenter.seen.withLock { $0 }
        let redirect = try #require(seen.registered)
        #expect(redirect == URL(string: "http://127.0.0.1:4321/oauth2/callback"))
        #expect(seen.finish == redirect)
        let opened = try #require(seen.opened.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true) })
        #expect(opened.host == "127.0.0.1" && opened.port == 4321 && opened.path == "/oauth2/authorize")
        #expect(opened.queryItems?.first { $0.name == "redirect_uri" }?.value == redirect.absoluteString)
    }
}
