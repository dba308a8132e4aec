import FlowHTTP
import FlowVocabulary
import Foundation
import Synchronization
import Testing

/// The session's own redirect loop: followed by default, stopped by a policy, methods rewritten, bounded, and
/// credentials kept from other origins.
@Suite struct RedirectTests {
    @Test func redirectsAreFollowedByDefault() async throws {
        try await withServer({ request in
            switch request.path {
            case "/start": .redirect(302, to: "/middle")
            case "/middle": .redirect(301, to: "/next")
            case "/next": .redirect(307, to: "/last")
            case "/last": .redirect(308, to: "/final")
            case "/final": Reply(headers: [("X-Hop", "final")], body: "the last hop")
            default: .notFound(request.path)
            }
        }) { server in
            try await withSession { session throws in
                let response = try await session.get(server.url("/start"))
                #expect(response.status == 200)
                #expect(response.url == server.url("/final"))
                #expect(response.text == "the last hop")
                #expect(response.header("X-Hop") == "final")
                #expect(server.requests.map(\.path) == ["/start", "/middle", "/next", "/last", "/final"])
            }
        }
    }

    @Test func absoluteLocationIsFollowed() async throws {
        try await withServer({ request in
            request.path == "/final" ? Reply(body: "here") : .notFound(request.path)
        }) { target in
            try await withServer({ _ in .redirect(to: target.url("/final").absoluteString) }) { server in
                try await withSession { session throws in
                    let response = try await session.get(server.url("/start"))
                    #expect(response.url == target.url("/final"))
                    #expect(response.text == "here")
                }
            }
        }
    }

    @Test func queryOfTheLocationIsKept() async throws {
        try await withServer({ request in
            switch request.path {
            case "/start": .redirect(to: "/final?code=xyz&state=1")
            default: Reply(body: request.query ?? "")
            }
        }) { server in
            try await withSession { session throws in
                let response = try await session.get(server.url("/start"))
                #expect(response.text == "code=xyz&state=1")
            }
        }
    }

    @Test func aStatusOf3xxWithoutLocationIsTheAnswer() async throws {
        try await withServer({ _ in Reply(status: 302, body: "nowhere to go") }) { server in
            try await withSession { session throws in
                let response = try await session.get(server.url("/start"))
                #expect(response.status == 302)
                #expect(response.text == "nowhere to go")
                #expect(server.requests.count == 1)
            }
        }
    }

    @Test func policyReturningStopHandsBackTheRedirect() async throws {
        try await withServer({ request in
            switch request.path {
            case "/start": .redirect(to: "/step")
            case "/step": .redirect(to: "/callback?code=secret", headers: [("X-Step", "yes")])
            default: Reply(body: "should not be reached")
            }
        }) { server in
            try await withSession { session throws in
                let asked = RecordedHops()
                let response = try await session.send(HTTPRequest(url: server.url("/start"))) { from, to in
                    asked.append(from, to)
                    return to.path == "/callback" ? .stop : .follow
                }
                #expect(response.status == 302)
                #expect(response.url == server.url("/step"))
                #expect(response.header("Location") == "/callback?code=secret")
                #expect(response.header("X-Hop") == nil)
                #expect(response.header("X-Step") == "yes")
                #expect(server.requests(to: "/callback").isEmpty)
                #expect(
                    asked.hops == [
                        .init(from: server.url("/start"), to: server.url("/step")),
                        .init(from: server.url("/step"), to: server.url("/callback?code=secret")),
                    ])
            }
        }
    }

    @Test func policyCanStopAtTheFirstRedirect() async throws {
        try await withServer({ request in
            request.path == "/start" ? .redirect(to: "/next") : Reply(body: "next")
        }) { server in
            try await withSession { session throws in
                let response = try await session.send(HTTPRequest(url: server.url("/start"))) { _, _ in .stop }
                #expect(response.status == 302)
                #expect(response.url == server.url("/start"))
                #expect(server.requests.map(\.path) == ["/start"])
            }
        }
    }

    @Test(arguments: [303, 302, 301])
    func redirectAfterPostBecomesGetWithoutBody(status: Int) async throws {
        try await withServer({ request in
            switch request.path {
            case "/submit": .redirect(status, to: "/result")
            default: Reply(body: "\(request.method) [\(request.body)]")
            }
        }) { server in
            try await withSession { session throws in
                let request = HTTPRequest(
                    method: "POST", url: server.url("/submit"), headers: [("Content-Type", "text/plain")],
                    body: Array("payload".utf8))
                let response = try await session.send(request)
                #expect(response.text == "GET []")
                let submitted = try #require(server.requests(to: "/submit").first)
                #expect(submitted.method == "POST")
                #expect(submitted.body == "payload")
                let result = try #require(server.requests(to: "/result").first)
                #expect(result.method == "GET")
                #expect(result.body == "")
            }
        }
    }

    @Test func seeOtherAfterPutBecomesGet() async throws {
        try await withServer({ request in
            request.path == "/resource"
                ? .redirect(303, to: "/status") : Reply(body: "\(request.method) [\(request.body)]")
        }) { server in
            try await withSession { session throws in
                let response = try await session.send(
                    HTTPRequest(method: "PUT", url: server.url("/resource"), body: Array("data".utf8)))
                #expect(response.text == "GET []")
            }
        }
    }

    @Test(arguments: [307, 308])
    func temporaryAndPermanentRedirectKeepMethodAndBody(status: Int) async throws {
        try await withServer({ request in
            switch request.path {
            case "/submit": .redirect(status, to: "/elsewhere")
            default: Reply(body: "\(request.method) [\(request.body)]")
            }
        }) { server in
            try await withSession { session throws in
                let response = try await session.send(
                    HTTPRequest(method: "POST", url: server.url("/submit"), body: Array("payload".utf8)))
                #expect(response.text == "POST [payload]")
            }
        }
    }

    @Test func redirectLoopFailsWithTooManyRedirects() async throws {
        try await withServer({ _ in .redirect(to: "/loop") }) { server in
            try await withSession(
                HTTPSession.Configuration(timeout: .seconds(600), connectTimeout: .seconds(600), maxRedirects: 3)
            ) { session throws in
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/loop"))))
                #expect(error.code == .tooManyRedirects)
                #expect(!error.isTransient)
                #expect(error.message.contains(server.url("/loop").absoluteString))
                // The first request and the three redirects allowed.
                #expect(server.requests.count == 4)
            }
        }
    }

    @Test func redirectLoopIsBoundedByTheDefaultLimit() async throws {
        try await withServer({ request in .redirect(to: request.path == "/a" ? "/b" : "/a") }) { server in
            try await withSession { session throws in
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/a"))))
                #expect(error.code == .tooManyRedirects)
                #expect(server.requests.count == HTTPSession.Configuration().maxRedirects + 1)
            }
        }
    }

    @Test func chainOfExactlyTheLimitSucceeds() async throws {
        try await withServer({ request in
            let hop = Int(request.path.dropFirst()) ?? 0
            return hop < 3 ? .redirect(to: "/\(hop + 1)") : Reply(body: "arrived")
        }) { server in
            try await withSession(
                HTTPSession.Configuration(timeout: .seconds(600), connectTimeout: .seconds(600), maxRedirects: 3)
            ) { session throws in
                let response = try await session.get(server.url("/0"))
                #expect(response.text == "arrived")
                #expect(response.url == server.url("/3"))
            }
        }
    }

    @Test func redirectToAnotherOriginDropsAuthorizationAndCookie() async throws {
        try await withServer({ _ in Reply(body: "landed") }) { other in
            try await withServer({ request in
                switch request.path {
                case "/go": .redirect(to: other.url("/landing").absoluteString)
                default: .notFound(request.path)
                }
            }) { server in
                try await withSession { session throws in
                    let request = HTTPRequest(
                        url: server.url("/go"),
                        headers: [("Authorization", "Bearer secret-token"), ("Cookie", "manual=1"), ("X-Trace", "t-1")])
                    let response = try await session.send(request)
                    #expect(response.text == "landed")

                    let first = try #require(server.requests(to: "/go").first)
                    #expect(first.header("Authorization") == "Bearer secret-token")
                    #expect(first.header("Cookie") == "manual=1")

                    let landed = try #require(other.requests(to: "/landing").first)
                    #expect(landed.header("Authorization") == nil)
                    #expect(landed.header("Cookie") == nil)
                    // Other headers of the request go on.
                    #expect(landed.header("X-Trace") == "t-1")
                }
            }
        }
    }

    @Test func credentialsDroppedOnceStayDroppedWhenTheChainComesBack() async throws {
        // A → B → A: the Authorization the caller gave for A does not reappear after a hop through B.
        let originPort = Mutex(0)
        try await withServer({ request in
            let back = "http://127.0.0.1:\(originPort.withLock { $0 })/back"
            return .redirect(to: back)
        }) { other in
            try await withServer({ request in
                request.path == "/start" ? .redirect(to: other.url("/bounce").absoluteString) : Reply(body: "back")
            }) { origin in
                originPort.withLock { $0 = origin.port }
                try await withSession { session throws in
                    let response = try await session.send(
                        HTTPRequest(url: origin.url("/start"), headers: [("Authorization", "Bearer t")]))
                    #expect(response.text == "back")
                    #expect(response.url == origin.url("/back"))
                    #expect(origin.requests(to: "/start").first?.header("Authorization") == "Bearer t")
                    #expect(other.requests(to: "/bounce").first?.header("Authorization") == nil)
                    #expect(origin.requests(to: "/back").first?.header("Authorization") == nil)
                }
            }
        }
    }

    @Test func redirectWithinTheOriginKeepsAuthorization() async throws {
        try await withServer({ request in
            request.path == "/go" ? .redirect(to: "/there") : Reply(body: request.header("Authorization") ?? "")
        }) { server in
            try await withSession { session throws in
                let response = try await session.send(
                    HTTPRequest(url: server.url("/go"), headers: [("Authorization", "Bearer t")]))
                #expect(response.text == "Bearer t")
            }
        }
    }
}

/// The hops a redirect policy was asked about.
final class RecordedHops: Sendable {
    struct Hop: Sendable, Equatable {
        var from: URL
        var to: URL
    }

    private let storage = Mutex<[Hop]>([])

    func append(_ from: URL, _ to: URL) {
        storage.withLock { $0.append(Hop(from: from, to: to)) }
    }

    var hops: [Hop] { storage.withLock { $0 } }
}
