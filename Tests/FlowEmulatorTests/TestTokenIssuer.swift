// An OAuth 2.0 issuer made in the test: ES256 keys generated here, an OpenID Connect discovery document and a JWKS
// served by Hummingbird on 127.0.0.1, and tokens signed with jwt-kit. The emulator fetches its keys over real HTTP.
//
// This file imports Hummingbird but not FlowHTTP: both define `HTTPRequest` and `HTTPResponse`.

import FlowTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import Logging
import NIOCore
import Synchronization

/// The claims a test token carries; any may be left out to see it refused.
struct TestTokenClaims: JWTPayload {
    var iss: IssuerClaim?
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?
    var aud: AudienceClaim?
    var sub: String?
    var email: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A running issuer: its URL (the `iss` of its tokens), the keys it publishes, the requests for its documents.
final class TestTokenIssuer: Sendable {
    private let state: TestIssuerState
    private let server: LoopbackServer

    private init(state: TestIssuerState, server: LoopbackServer) {
        self.state = state
        self.server = server
    }

    var url: URL { server.url }
    /// The issuer's identifier as its tokens name it.
    var issuer: String { url.absoluteString }
    /// The URL of its JWKS.
    var jwksURL: URL { url.appendingPathComponent("jwks") }
    /// How many times its JWKS was fetched.
    var keySetFetches: Int { state.paths.withLock { $0.count(where: { $0 == "/jwks" }) } }
    /// How many times its discovery document was fetched.
    var discoveryFetches: Int {
        state.paths.withLock { $0.count(where: { $0 == "/.well-known/openid-configuration" }) }
    }

    /// Starts an issuer publishing one key, `k1`; returns once it accepts connections.
    static func start() async throws -> TestTokenIssuer {
        let state = TestIssuerState()
        state.publish(kid: "k1")
        let server = try await LoopbackServer.start(TestIssuerResponder(state: state), name: "idp")
        state.base.withLock { $0 = server.url.absoluteString }
        return TestTokenIssuer(state: state, server: server)
    }

    func stop() async {
        await server.stop()
    }

    /// Adds a new key `kid` to the published set (a key rotation).
    func publish(kid: String) {
        state.publish(kid: kid)
    }

    /// A token with `claims`, signed by the published key `kid`; or, with `withUnpublishedKey`, by another key
    /// under the same `kid` (a forged signature).
    func token(_ claims: TestTokenClaims, kid: String = "k1", withUnpublishedKey: Bool = false) async throws -> String {
        let key = withUnpublishedKey ? ES256PrivateKey() : try state.key(kid)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }
}

struct UnknownTestKey: Error {}

/// Runs `body` with a token issuer, stopping it afterwards (also when `body` throws).
func withTokenIssuer(_ body: (TestTokenIssuer) async throws -> Void) async throws {
    try await using(try await TestTokenIssuer.start(), stop: { await $0.stop() }, body)
}

/// The issuer's keys and what it was asked for.
final class TestIssuerState: Sendable {
    let keys = Mutex<[(kid: String, key: ES256PrivateKey)]>([])
    let paths = Mutex<[String]>([])
    let base = Mutex("")

    func publish(kid: String) {
        keys.withLock { $0.append((kid, ES256PrivateKey())) }
    }

    func key(_ kid: String) throws -> ES256PrivateKey {
        guard let key = keys.withLock({ $0.first { $0.kid == kid }?.key }) else { throw UnknownTestKey() }
        return key
    }

    /// The published keys as a JWKS document.
    var keySet: String {
        let entries = keys.withLock { keys in
            keys.map { entry -> String in
                let (x, y) = entry.key.publicKey.parameters ?? ("", "")
                return #"{"kty":"EC","crv":"P-256","use":"sig","alg":"ES256","kid":"\#(entry.kid)","#
                    + #""x":"\#(x)","y":"\#(y)"}"#
            }
        }
        return #"{"keys":[\#(entries.joined(separator: ","))]}"#
    }
}

struct TestIssuerResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let state: TestIssuerState

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        let path = request.uri.path
        state.paths.withLock { $0.append(path) }
        let body: String
        switch path {
        case "/.well-known/openid-configuration":
            let base = state.base.withLock { $0 }
            body = #"{"issuer":"\#(base)","jwks_uri":"\#(base)/jwks"}"#
        case "/jwks":
            body = state.keySet
        default:
            return Response(status: .notFound)
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
