import FlowHTTP
import FlowVocabulary
import Foundation
import Testing

/// Credentials stay with their origin: default headers that carry one go only where they were given for, on every
/// hop of a redirect chain, and a body that holds a secret is never resent to another origin by a 307 or 308. Every
/// other origin is a real loopback server of its own, which records what it received.
@Suite struct CredentialOriginTests {
    /// Sets the headers of a `session-configuration` with an API key and a bearer token for `backend`.
    private func configure(_ session: HTTPSession, backend: TestServer, also: [TestServer] = []) {
        let origins = HeaderReach.origins(Set(([backend] + also).map(\.origin)))
        session.setDefaultHeader("X-API-Key", "api-key-s3cret", reach: origins)
        session.setDefaultHeader("Authorization", "Bearer token-s3cret", reach: origins)
        session.setDefaultHeader("X-SMP-APPID", "com.example.app")
    }

    // MARK: Default headers

    @Test func aCrossOriginRedirectGetsTheOrdinaryDefaultHeadersButNoCredentialHeader() async throws {
        try await withServer({ _ in Reply() }) { other in
            try await withServer({ _ in .redirect(to: other.url("/landing").absoluteString) }) { backend in
                try await withSession { session throws in
                    configure(session, backend: backend)
                    _ = try await session.get(backend.url("/away"))
                    let first = try #require(backend.requests.first)
                    #expect(first.header("X-API-Key") == "api-key-s3cret")
                    #expect(first.header("Authorization") == "Bearer token-s3cret")
                    let landed = try #require(other.requests.first)
                    #expect(landed.path == "/landing")
                    #expect(landed.header("X-SMP-APPID") == "com.example.app")
                    #expect(landed.header("X-API-Key") == nil)
                    #expect(landed.header("Authorization") == nil)
                }
            }
        }
    }

    @Test func aRequestStraightToAnotherOriginGetsNoCredentialHeader() async throws {
        try await withServer({ _ in Reply() }) { provider in
            try await withServer({ _ in Reply() }) { backend in
                try await withSession { session throws in
                    configure(session, backend: backend)
                    _ = try await session.send(
                        HTTPRequest(method: "POST", url: provider.url("/token"), body: Array("grant_type=x".utf8)))
                    let received = try #require(provider.requests.first)
                    #expect(received.header("X-SMP-APPID") == "com.example.app")
                    #expect(received.header("X-API-Key") == nil)
                    #expect(received.header("Authorization") == nil)
                }
            }
        }
    }

    @Test func aRedirectBackToTheBackendCarriesTheCredentialHeadersAgain() async throws {
        try await withServer({ _ in Reply() }) { backendLanding in
            try await withServer({ _ in .redirect(to: backendLanding.url("/back").absoluteString) }) { other in
                try await withSession { session throws in
                    configure(session, backend: backendLanding)
                    _ = try await session.get(other.url("/bounce"))
                    #expect(other.requests.first?.header("X-API-Key") == nil)
                    #expect(backendLanding.requests.first?.header("X-API-Key") == "api-key-s3cret")
                }
            }
        }
    }

    @Test func anOriginNamedForTheCredentialHeadersGetsThem() async throws {
        try await withServer({ _ in Reply() }) { gateway in
            try await withServer({ _ in .redirect(to: gateway.url("/api").absoluteString) }) { backend in
                try await withSession { session throws in
                    configure(session, backend: backend, also: [gateway])
                    _ = try await session.get(backend.url("/start"))
                    #expect(gateway.requests.first?.header("X-API-Key") == "api-key-s3cret")
                    #expect(gateway.requests.first?.header("Authorization") == "Bearer token-s3cret")
                }
            }
        }
    }

    @Test func theRequestsOwnProxyAuthorizationIsDroppedOnACrossOriginHop() async throws {
        try await withServer({ _ in Reply() }) { other in
            try await withServer({ _ in .redirect(to: other.url("/landing").absoluteString) }) { backend in
                try await withSession { session throws in
                    _ = try await session.get(backend.url("/away"), headers: [("Proxy-Authorization", "Basic eDp5")])
                    #expect(backend.requests.first?.header("Proxy-Authorization") == "Basic eDp5")
                    #expect(other.requests.first?.header("Proxy-Authorization") == nil)
                }
            }
        }
    }

    // MARK: Secret bodies

    @Test(arguments: [307, 308])
    func aSecretBodyRedirectedToAnotherOriginIsSentNowhereAndNamed(status: Int) async throws {
        try await withServer({ _ in Reply(status: 201) }) { other in
            try await withServer({ _ in .redirect(status, to: other.url("/keys").absoluteString) }) { backend in
                try await withSession { session throws in
                    let request = HTTPRequest(
                        method: "PUT", url: backend.url("/recovery"), body: Array(#"{"recoveryKey":"k3y"}"#.utf8),
                        bodyHoldsSecret: true)
                    let error = try #require(await session.failure(of: request))
                    #expect(error.code == .secretBodyRedirect)
                    #expect(!error.isTransient)
                    #expect(error.message.contains("PUT \(backend.url("/recovery").absoluteString)"), "\(error)")
                    #expect(error.message.contains("another origin"), "\(error)")
                    #expect(!error.message.contains("k3y"))
                    #expect(backend.requests.count == 1)
                    #expect(other.requests.isEmpty, "\(other.requests.map(\.body))")
                }
            }
        }
    }

    @Test func aSecretBodyFollowsA307WithinItsOrigin() async throws {
        try await withServer({ request in request.path == "/old" ? .redirect(307, to: "/new") : Reply(status: 201) }) {
            backend in
            try await withSession { session throws in
                let request = HTTPRequest(
                    method: "POST", url: backend.url("/old"), body: Array("password=pw".utf8), bodyHoldsSecret: true)
                #expect(try await session.send(request).status == 201)
                #expect(backend.requests(to: "/new").first?.body == "password=pw")
            }
        }
    }

    @Test func aBodyWithoutASecretFollowsA307ToAnotherOrigin() async throws {
        try await withServer({ _ in Reply(status: 201) }) { other in
            try await withServer({ _ in .redirect(307, to: other.url("/upload").absoluteString) }) { backend in
                try await withSession { session throws in
                    let request = HTTPRequest(method: "POST", url: backend.url("/upload"), body: Array("log".utf8))
                    #expect(try await session.send(request).status == 201)
                    #expect(other.requests.first?.body == "log")
                }
            }
        }
    }

    @Test func aSecretBodyDroppedByA303MayGoToAnotherOrigin() async throws {
        try await withServer({ _ in Reply() }) { other in
            try await withServer({ _ in .redirect(303, to: other.url("/done").absoluteString) }) { backend in
                try await withSession { session throws in
                    let request = HTTPRequest(
                        method: "POST", url: backend.url("/login"), body: Array("password=pw".utf8),
                        bodyHoldsSecret: true)
                    #expect(try await session.send(request).status == 200)
                    #expect(other.requests.first?.method == "GET")
                    #expect(other.requests.first?.body == "")
                }
            }
        }
    }
}
