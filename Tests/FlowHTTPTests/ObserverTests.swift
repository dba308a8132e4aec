import FlowHTTP
import FlowVocabulary
import Foundation
import Testing

/// Adds a header to every request it may decorate.
private struct TokenObserver: HTTPObserver {
    var name = "X-Token"
    var value = "secret"

    func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        request.setHeader(name, value)
    }
}

/// Asks for a resend the first `times` answers it sees, counting every answer it inspects.
private final class ResendObserver: HTTPObserver {
    let times: Int
    let inspected = Counter()
    let decorated = Counter()

    init(times: Int) {
        self.times = times
    }

    func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        let round = decorated.next()
        request.setHeader("X-Round", String(round))
    }

    func inspect(_ response: HTTPResponse, for request: HTTPRequest) async throws(HTTPError) -> ObserverDecision {
        inspected.next() <= times ? .resend : .proceed
    }
}

/// Fails every request in `decorate`.
private struct FailingObserver: HTTPObserver {
    func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        throw HTTPError(.authenticationFailed, "no credentials for \(request.url.absoluteString)", transient: false)
    }
}

/// Fails on inspecting a 401.
private struct ChallengeObserver: HTTPObserver {
    func inspect(_ response: HTTPResponse, for request: HTTPRequest) async throws(HTTPError) -> ObserverDecision {
        if response.status == 401 { throw HTTPError(.credentialsRefused, "challenge", transient: false) }
        return .proceed
    }
}

/// Records the order in which observers decorate.
private struct OrderObserver: HTTPObserver {
    var mark: String

    func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        request.setHeader("X-Order", (request.header("X-Order").map { $0 + "," } ?? "") + mark)
    }
}

@Suite struct ObserverTests {
    @Test func decorateAddsAHeaderTheServerSees() async throws {
        try await withServer({ request in Reply(body: request.header("X-Token") ?? "") }) { server in
            try await withSession { session throws in
                session.addObserver(TokenObserver())
                #expect(try await session.get(server.url("/one")).text == "secret")
                #expect(try await session.get(server.url("/two")).text == "secret")
                #expect(server.requests.allSatisfy { $0.header("X-Token") == "secret" })
            }
        }
    }

    @Test func decorateAppliesOnSameOriginRedirectsButNotAfterAHopToAnotherOrigin() async throws {
        try await withServer({ request in Reply(body: request.header("X-Token") ?? "") }) { other in
            try await withServer({ request in
                switch request.path {
                case "/local": .redirect(to: "/page")
                case "/away": .redirect(to: other.url("/landing").absoluteString)
                default: Reply(body: request.header("X-Token") ?? "")
                }
            }) { server in
                try await withSession { session throws in
                    session.addObserver(TokenObserver())
                    #expect(try await session.get(server.url("/local")).text == "secret")
                    #expect(server.requests(to: "/local").first?.header("X-Token") == "secret")
                    #expect(server.requests(to: "/page").first?.header("X-Token") == "secret")

                    let response = try await session.get(server.url("/away"))
                    #expect(response.url == other.url("/landing"))
                    #expect(response.text == "")
                    #expect(server.requests(to: "/away").first?.header("X-Token") == "secret")
                    #expect(other.requests(to: "/landing").count == 1)
                    #expect(other.requests(to: "/landing").first?.header("X-Token") == nil)
                }
            }
        }
    }

    @Test func observersDecorateInTheOrderTheyWereAdded() async throws {
        try await withServer({ request in Reply(body: request.header("X-Order") ?? "") }) { server in
            try await withSession { session throws in
                session.addObserver(OrderObserver(mark: "first"))
                session.addObserver(OrderObserver(mark: "second"))
                #expect(try await session.get(server.url("/")).text == "first,second")
            }
        }
    }

    @Test func resendOnceSendsTheRequestTwice() async throws {
        let hits = Counter()
        try await withServer({ _ in Reply(body: "answer \(hits.next())") }) { server in
            try await withSession { session throws in
                let observer = ResendObserver(times: 1)
                session.addObserver(observer)
                let response = try await session.send(
                    HTTPRequest(method: "POST", url: server.url("/count"), body: Array("b".utf8)))
                #expect(response.text == "answer 2")
                #expect(server.requests.count == 2)
                #expect(observer.inspected.count == 2)
                // Decorated again before the resend, with the same method and body.
                #expect(server.requests.map { $0.header("X-Round") } == ["1", "2"])
                #expect(server.requests.allSatisfy { $0.method == "POST" && $0.body == "b" })
            }
        }
    }

    @Test func observerThatAlwaysResendsStopsAtTheLimit() async throws {
        try await withServer({ _ in Reply(status: 401, body: "login required") }) { server in
            try await withSession { session throws in
                let observer = ResendObserver(times: .max)
                session.addObserver(observer)
                let response = try await session.get(server.url("/protected"))
                #expect(response.status == 401)
                #expect(response.text == "login required")
                // The request and at most two resends (docs/decisions/0005-http-session.md).
                #expect(server.requests.count == 3)
                #expect(observer.inspected.count == 3)
            }
        }
    }

    /// Observers see redirect answers too (an OTP or SAML challenge may come on one); a resend sends that hop again.
    @Test func observersSeeARedirectAndAResendSendsThatHopAgain() async throws {
        try await withServer({ request in
            request.path == "/start" ? .redirect(to: "/target") : Reply(body: "target")
        }) { server in
            try await withSession { session throws in
                session.addObserver(ResendObserver(times: 1))
                let response = try await session.get(server.url("/start"))
                #expect(response.text == "target")
                #expect(server.requests.map(\.path) == ["/start", "/start", "/target"])
            }
        }
    }

    @Test func answersFromAnotherOriginAreNotInspected() async throws {
        try await withServer({ _ in Reply(body: "other") }) { other in
            try await withServer({ _ in .redirect(to: other.url("/landing").absoluteString) }) { server in
                try await withSession { session throws in
                    let observer = ResendObserver(times: 0)
                    session.addObserver(observer)
                    let response = try await session.get(server.url("/away"))
                    #expect(response.text == "other")
                    // The redirect from the request's own origin, not the other origin's answer.
                    #expect(observer.inspected.count == 1)
                    #expect(other.requests.count == 1)
                }
            }
        }
    }

    @Test func errorThrownByDecorateFailsTheRequestBeforeAnyTraffic() async throws {
        try await withServer({ _ in Reply() }) { server in
            try await withSession { session throws in
                session.addObserver(FailingObserver())
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/x"))))
                #expect(error.code == .authenticationFailed)
                #expect(server.requests.isEmpty)
            }
        }
    }

    @Test func errorThrownByInspectFailsTheRequest() async throws {
        try await withServer({ _ in Reply(status: 401) }) { server in
            try await withSession { session throws in
                session.addObserver(ChallengeObserver())
                let error = try #require(await session.failure(of: HTTPRequest(url: server.url("/x"))))
                #expect(error.code == .credentialsRefused)
                #expect(server.requests.count == 1)
            }
        }
    }
}
