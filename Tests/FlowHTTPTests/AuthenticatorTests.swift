import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import Synchronization
import Testing

/// A bearer-token authenticator whose login asks `/login` for a token through the plain transport.
final class TokenAuthenticator: Authenticator {
    let method = AuthenticationMethod.oauth2
    let origin: String
    let challenges: [ChallengeTest]
    let logins = Counter()
    private let token = Mutex<String?>(nil)
    private let loginPath: String

    init(origin: String, challenges: [ChallengeTest] = ChallengeTest.oauth2, loginPath: String = "/login") {
        self.origin = origin
        self.challenges = challenges
        self.loginPath = loginPath
    }

    func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        if let token = token.withLock({ $0 }) { request.setHeader("Authorization", "Bearer \(token)") }
    }

    func authenticate(
        after challenge: HTTPResponse, for request: HTTPRequest, transport: HTTPTransport
    ) async throws(HTTPError) {
        logins.next()
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)!
        components.path = loginPath
        components.query = nil
        let answer = try await transport.send(HTTPRequest(method: "POST", url: components.url!))
        guard answer.status == 200 else {
            throw HTTPError(.loginRefused, "the login answered \(answer.status)", transient: false)
        }
        token.withLock { $0 = String(decoding: answer.body, as: UTF8.self) }
    }
}

@Suite struct AuthenticatorTests {
    @Test func theDefaultChallengeTestsKnowTheVariantsBackendsSend() {
        func answer(_ status: Int, _ headers: [(String, String)]) -> HTTPResponse {
            HTTPResponse(
                status: status, headers: headers.map { ($0.0, $0.1) }, body: [], url: URL(string: "http://127.0.0.1/")!)
        }
        let oauth = ChallengeTest.oauth2
        #expect(oauth.contains { $0.matches(answer(401, [("WWW-Authenticate", "Bearer realm=\"x\"")])) })
        #expect(oauth.contains { $0.matches(answer(401, [("x-smp-authentication-status", "1000")])) })
        #expect(oauth.contains { $0.matches(answer(400, [("X-SMP-AUTHENTICATION-STATUS", "1000")])) })
        #expect(!oauth.contains { $0.matches(answer(401, [("WWW-Authenticate", "Basic realm=\"x\"")])) })
        #expect(!oauth.contains { $0.matches(answer(403, [("X-SMP-AUTHENTICATION-STATUS", "1000")])) })
        #expect(ChallengeTest.basic.contains { $0.matches(answer(401, [("WWW-Authenticate", "basic realm=\"x\"")])) })
        #expect(
            ChallengeTest.saml.contains { $0.matches(answer(200, [("com.sap.cloud.security.login", "login-request")])) }
        )
        #expect(
            ChallengeTest.saml.contains { $0.matches(answer(302, [("com.sap.cloud.security.login", "login-request")])) }
        )
        #expect(!ChallengeTest.saml.contains { $0.matches(answer(200, [])) })
        #expect(ChallengeTest.otp.contains { $0.matches(answer(302, [("x-smp-authentication", "otp-challenge")])) })
        #expect(ChallengeTest.otp.contains { $0.matches(answer(200, [("x-smp-authentication", "otp-challenge")])) })
    }

    /// Five requests meet the challenge together; the login answers only once all five were challenged, so every
    /// one of them is waiting while it runs. One login, five resends that succeed.
    @Test func requestsChallengedTogetherShareOneLogin() async throws {
        let challenged = Counter()
        let allChallenged = Gate()
        let tokens = Counter()
        try await withServer({ request in
            switch request.path {
            case "/login":
                await allChallenged.wait()
                return Reply(body: "token-\(tokens.next())")
            default:
                guard request.header("Authorization") == "Bearer token-1" else {
                    defer { if challenged.next() == 5 { allChallenged.open() } }
                    return Reply(status: 401, headers: [("WWW-Authenticate", "Bearer realm=\"test\"")])
                }
                return Reply(body: "data \(request.path)")
            }
        }) { server in
            try await withSession { session throws in
                let authenticator = TokenAuthenticator(origin: server.url("/").origin)
                try session.addAuthenticator(authenticator)
                let texts = try await withThrowingTaskGroup(of: String.self) { group in
                    for index in 1...5 {
                        group.addTask { try await session.get(server.url("/data/\(index)")).text }
                    }
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
                #expect(texts.sorted() == (1...5).map { "data /data/\($0)" })
                #expect(authenticator.logins.count == 1)
                #expect(server.requests(to: "/login").count == 1)
            }
        }
    }

    /// A correlation ID names one request of the app: a new one per request, the same on the resend after a login.
    @Test func aCorrelationIDIsNewPerRequestAndKeptAcrossALoginsResend() async throws {
        try await withServer({ request in
            switch request.path {
            case "/login": return Reply(body: "t")
            default:
                guard request.header("Authorization") == "Bearer t" else {
                    return Reply(status: 401, headers: [("WWW-Authenticate", "Bearer realm=\"test\"")])
                }
                return Reply(body: "data")
            }
        }) { server in
            try await withSession { session throws in
                session.setCorrelationHeader("X-CorrelationID")
                try session.addAuthenticator(TokenAuthenticator(origin: server.url("/").origin))
                _ = try await session.get(server.url("/data"))
                _ = try await session.get(server.url("/data"))
                let ids = server.requests(to: "/data").map { $0.header("X-CorrelationID") }
                #expect(ids.count == 3)
                #expect(ids.allSatisfy { $0 != nil })
                #expect(ids[0] == ids[1], "the resend after the login is the same request")
                #expect(ids[1] != ids[2], "the next request has its own ID")
            }
        }
    }

    /// The login's own requests go through the plain transport: a login endpoint that itself answers with the
    /// challenge is handed back to the login, never to the authenticator again.
    @Test func loginTrafficNeverMeetsItsOwnAuthenticator() async throws {
        try await withServer({ request in
            Reply(status: 401, headers: [("WWW-Authenticate", "Bearer")])
        }) { server in
            try await withSession { session throws in
                let authenticator = TokenAuthenticator(origin: server.url("/").origin)
                try session.addAuthenticator(authenticator)
                let failure = await session.failure(of: HTTPRequest(url: server.url("/data")))
                #expect(failure?.code == .loginRefused)
                #expect(authenticator.logins.count == 1)
                #expect(server.requests(to: "/login").count == 1)
                #expect(server.requests(to: "/login").first?.header("Authorization") == nil)
            }
        }
    }

    /// A challenge on a redirect is answered before the redirect is followed, and the original request is sent
    /// again from its first hop.
    @Test func aChallengeOnARedirectIsSeen() async throws {
        try await withServer({ request in
            switch request.path {
            case "/login": return Reply(headers: [("Set-Cookie", "otp=passed; Path=/")], body: "t")
            case "/form": return Reply(body: "the form")
            default:
                guard request.header("Cookie")?.contains("otp=passed") == true else {
                    return .redirect(to: "/form", headers: [("x-smp-authentication", "otp-challenge")])
                }
                return Reply(body: "protected")
            }
        }) { server in
            try await withSession { session throws in
                let authenticator = TokenAuthenticator(origin: server.url("/").origin, challenges: ChallengeTest.otp)
                try session.addAuthenticator(authenticator)
                #expect(try await session.get(server.url("/data")).text == "protected")
                #expect(server.requests(to: "/form").isEmpty)
                #expect(server.requests(to: "/data").count == 2)
                #expect(authenticator.logins.count == 1)
            }
        }
    }

    @Test func aBackendThatRefusesEveryLoginEndsWithAClearErrorNotALoop() async throws {
        try await withServer({ request in
            request.path == "/login"
                ? Reply(body: "useless") : Reply(status: 401, headers: [("WWW-Authenticate", "Bearer")])
        }) { server in
            try await withSession { session throws in
                let authenticator = TokenAuthenticator(origin: server.url("/").origin)
                try session.addAuthenticator(authenticator)
                let failure = await session.failure(of: HTTPRequest(url: server.url("/data")))
                #expect(failure?.code == .authenticationFailed)
                #expect(failure?.message.contains("still challenged for oauth2 authentication") == true)
                #expect(authenticator.logins.count == 2)
            }
        }
    }

    @Test func credentialsGoToTheAuthenticatorsOriginOnly() async throws {
        try await withServer({ request in Reply(body: request.header("Authorization") ?? "none") }) { other in
            try await withServer({ request in
                switch request.path {
                case "/login": return Reply(body: "t1")
                case "/away": return .redirect(to: other.url("/landing").absoluteString)
                default:
                    return request.header("Authorization") == nil
                        ? Reply(status: 401, headers: [("WWW-Authenticate", "Bearer")]) : Reply(body: "ok")
                }
            }) { server in
                try await withSession { session throws in
                    try session.addAuthenticator(TokenAuthenticator(origin: server.url("/").origin))
                    #expect(try await session.get(server.url("/data")).text == "ok")
                    #expect(try await session.get(server.url("/away")).text == "none")
                    #expect(try await session.get(other.url("/direct")).text == "none")
                    #expect(server.requests(to: "/away").first?.header("Authorization") == "Bearer t1")
                }
            }
        }
    }

    @Test func anAuthenticatorCanBeRemovedAndNotRegisteredTwice() async throws {
        try await withServer({ request in
            request.path == "/login" ? Reply(body: "t1") : Reply(body: request.header("Authorization") ?? "none")
        }) { server in
            try await withSession { session throws in
                let origin = server.url("/").origin
                let registration = try session.addAuthenticator(TokenAuthenticator(origin: origin))
                var twice: HTTPError?
                do {
                    try session.addAuthenticator(TokenAuthenticator(origin: origin))
                } catch {
                    twice = error as? HTTPError
                }
                #expect(twice?.code == .authenticatorRegisteredTwice)
                #expect(session.authenticatorMethods == [.oauth2])
                session.removeAuthenticator(registration)
                #expect(session.authenticatorMethods.isEmpty)
                #expect(try await session.get(server.url("/data")).text == "none")
                try session.addAuthenticator(TokenAuthenticator(origin: origin))
                #expect(session.authenticatorMethods == [.oauth2])
            }
        }
    }

    /// A login that fails fails every request waiting for it; the next challenge tries again.
    @Test func aFailedLoginIsReportedAndTheNextChallengeTriesAgain() async throws {
        let attempts = Counter()
        try await withServer({ request in
            switch request.path {
            case "/login": return attempts.next() == 1 ? Reply(status: 500) : Reply(body: "t2")
            default:
                return request.header("Authorization") == "Bearer t2"
                    ? Reply(body: "ok") : Reply(status: 401, headers: [("WWW-Authenticate", "Bearer")])
            }
        }) { server in
            try await withSession { session throws in
                let authenticator = TokenAuthenticator(origin: server.url("/").origin)
                try session.addAuthenticator(authenticator)
                #expect(await session.failure(of: HTTPRequest(url: server.url("/data")))?.code == .loginRefused)
                #expect(try await session.get(server.url("/data")).text == "ok")
                #expect(authenticator.logins.count == 2)
            }
        }
    }
}
