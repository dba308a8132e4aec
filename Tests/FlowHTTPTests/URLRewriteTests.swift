import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import Synchronization
import Testing

/// An authenticator for an origin that only the session's rewrite makes reachable: it adds a fixed header.
private struct HeaderAuthenticator: Authenticator {
    let method = AuthenticationMethod.basic
    let origin: String
    let challenges: [ChallengeTest] = ChallengeTest.basic

    func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        request.setHeader("Authorization", "Basic YWRhOmxvdmVsYWNl")
    }

    func authenticate(
        after challenge: HTTPResponse, for request: HTTPRequest, transport: HTTPTransport
    ) async throws(HTTPError) {}
}

/// The session's URL rewrite (`flowrun run --emulator`): every request, redirects included, goes to the target;
/// the origins it keeps are reached where they are; cookies and credentials follow the rewritten origin.
@Suite struct URLRewriteTests {
    /// A host nobody here resolves: a request only arrives when the rewrite sends it elsewhere.
    static let backend = URL(string: "https://mobile.backend.invalid/mobileservices/application/hr?sap-client=100")!

    @Test func aRequestToAnyOriginGoesToTheTargetWithItsPathAndQuery() async throws {
        try await withServer({ request in Reply(body: "\(request.path)?\(request.query ?? "")") }) { server in
            try await withSession(.rewritten(to: server)) { session throws in
                let response = try await session.get(Self.backend)
                #expect(response.text == "/mobileservices/application/hr?sap-client=100")
                #expect(response.url == server.url("/mobileservices/application/hr?sap-client=100"))
            }
        }
    }

    @Test func aRedirectToAnotherOriginIsRewrittenBeforeItIsFollowed() async throws {
        try await withServer({ request in
            switch request.path {
            case "/start": .redirect(to: "https://idp.backend.invalid:8443/login?relay=1")
            case "/login": Reply(body: "login page")
            default: .notFound(request.path)
            }
        }) { server in
            try await withSession(.rewritten(to: server)) { session throws in
                let hops = Mutex<[URL]>([])
                let response = try await session.send(HTTPRequest(url: URL(string: "https://a.invalid/start")!)) {
                    _, target in
                    hops.withLock { $0.append(target) }
                    return .follow
                }
                #expect(response.text == "login page")
                #expect(server.requests.map(\.path) == ["/start", "/login"])
                // What a redirect policy sees is where the session goes: a login stops at its finish URL there.
                #expect(hops.withLock { $0 } == [server.url("/login?relay=1")])
            }
        }
    }

    @Test func anOriginTheRewriteKeepsIsReachedWhereItIs() async throws {
        try await withServer({ _ in Reply(body: "target") }) { target in
            try await withServer({ _ in Reply(body: "identity provider") }) { kept in
                let rewrite = URLRewrite(target: target.url("/"), keeping: [kept.url("/")])
                try await withSession(.init(timeout: .seconds(600), connectTimeout: .seconds(600), rewrite: rewrite)) {
                    session throws in
                    #expect(try await session.get(kept.url("/saml/sso")).text == "identity provider")
                    #expect(try await session.get(Self.backend).text == "target")
                    #expect(kept.requests.map(\.path) == ["/saml/sso"])
                }
            }
        }
    }

    @Test func cookiesAndCredentialsFollowTheRewrittenOrigin() async throws {
        try await withServer({ request in
            request.path == "/login"
                ? Reply(headers: [("Set-Cookie", "session=s1; Path=/")], body: "in")
                : Reply(body: request.header("Cookie") ?? "no cookie")
        }) { server in
            try await withSession(.rewritten(to: server)) { session throws in
                try session.addAuthenticator(HeaderAuthenticator(origin: Self.backend.origin))
                _ = try await session.get(URL(string: "https://mobile.backend.invalid/login")!)
                // The jar answers for the URL a step knows, as for the one the request went to.
                #expect(session.cookies.header(for: Self.backend) == "session=s1")
                #expect(session.cookies.header(for: server.url("/data")) == "session=s1")
                #expect(try await session.get(URL(string: "https://mobile.backend.invalid/data")!).text == "session=s1")
                #expect(server.requests.allSatisfy { $0.header("Authorization") == "Basic YWRhOmxvdmVsYWNl" })
            }
        }
    }

    @Test func aURLGivenToABrowserIsTheOneTheSessionWouldSendTo() async throws {
        let target = URL(string: "http://127.0.0.1:4321")!
        try await withSession(.init(rewrite: URLRewrite(target: target))) { session throws in
            let mapped = URL(string: "http://127.0.0.1:4321/mobileservices/application/hr?sap-client=100")!
            #expect(session.rewritten(Self.backend) == mapped)
            #expect(session.transport.rewritten(Self.backend) == mapped)
            // Rewriting twice changes nothing, so every boundary may apply it.
            #expect(session.rewritten(mapped) == mapped)
        }
        try await withSession { session throws in
            #expect(session.rewritten(Self.backend) == Self.backend)
        }
    }
}

extension HTTPSession.Configuration {
    /// The test limits, every request sent to `server`.
    fileprivate static func rewritten(to server: TestServer) -> Self {
        Self(timeout: .seconds(600), connectTimeout: .seconds(600), rewrite: URLRewrite(target: server.url("/")))
    }
}
