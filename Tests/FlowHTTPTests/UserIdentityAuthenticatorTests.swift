import FlowDescriptor
import FlowHTTP
import FlowVocabulary
import Foundation
import NIOSSL
import Synchronization
import Testing

/// The user-identity authenticator: a server's demand for a client certificate (a handshake that needs one, the
/// emulator's marker, a flow's own challenge) is answered by obtaining one identity, which the session presents
/// from then on, and the request is sent again.
@Suite struct UserIdentityAuthenticatorTests {
    private func withPKI(_ body: (TestPKI) async throws -> Void) async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        try await body(pki)
    }

    private func configuration(caBundle: String) -> HTTPSession.Configuration {
        var configuration = HTTPSession.Configuration.forTests
        configuration.tls = TLSSettings(caBundle: caBundle)
        return configuration
    }

    private static func inMemory(_ identity: TestIdentity) throws -> ClientIdentity {
        .inMemory(certificateChainPEM: try identity.certificatePEM, privateKeyPEM: Secret(identity.keyPEM))
    }

    private static let demand = Reply(status: 403, headers: [("x-smp-authentication", "certificate-required")])

    @Test func aSessionPresentsAnIdentityGivenDuringTheRun() async throws {
        try await withPKI { pki throws in
            let serverTLS = try pki.serverConfiguration(clientsFrom: pki.authority)
            try await withServer(tls: serverTLS, { _ in Reply(body: "welcome") }) { server throws in
                try await withSession(configuration(caBundle: try pki.caBundle)) { session throws in
                    let before = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(before?.code == .certificateRequired, "\(String(describing: before))")
                    try session.useClientIdentity(try Self.inMemory(pki.client))
                    #expect(try await session.get(server.url("/hello")).text == "welcome")
                    try session.useClientIdentity(nil)
                    let after = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(after?.code == .certificateRequired, "\(String(describing: after))")
                }
            }
        }
    }

    @Test func anIdentityThatCannotBeParsedIsRefusedAndTheCurrentOneStays() async throws {
        try await withPKI { pki throws in
            try await withSession(configuration(caBundle: try pki.caBundle)) { session throws in
                try session.useClientIdentity(try Self.inMemory(pki.client))
                let broken = ClientIdentity.inMemory(
                    certificateChainPEM: "no certificate", privateKeyPEM: Secret("not-a-key-secret"))
                #expect(throws: HTTPError.self) { try session.useClientIdentity(broken) }
                #expect(session.clientIdentity == (try Self.inMemory(pki.client)))
            }
        }
    }

    /// Five requests at once to a server that ends every handshake without a certificate: one identity is
    /// obtained, and every request is sent again with it.
    @Test func aHandshakeThatNeedsACertificateObtainsOneIdentityForConcurrentRequests() async throws {
        try await withPKI { pki throws in
            let serverTLS = try pki.serverConfiguration(clientsFrom: pki.authority)
            try await withServer(tls: serverTLS, { request in Reply(body: "data \(request.path)") }) { server throws in
                try await withSession(configuration(caBundle: try pki.caBundle)) { session throws in
                    let obtained = Counter()
                    let identity = try Self.inMemory(pki.client)
                    try session.addAuthenticator(
                        UserIdentityAuthenticator(origin: server.url("/").origin) { _ in
                            obtained.next()
                            return identity
                        })
                    let texts = try await withThrowingTaskGroup(of: String.self) { group in
                        for index in 1...5 {
                            group.addTask { try await session.get(server.url("/data/\(index)")).text }
                        }
                        return try await group.reduce(into: [String]()) { $0.append($1) }
                    }
                    #expect(texts.sorted() == (1...5).map { "data /data/\($0)" })
                    #expect(obtained.count == 1)
                    #expect(session.clientIdentity == identity)
                }
            }
        }
    }

    /// The emulator's marker on five requests at once; the identity is handed over only once all five were
    /// demanded, so the others wait for that one acquisition.
    @Test func requestsDemandedTogetherWaitForOneAcquisitionAndAreResent() async throws {
        try await withPKI { pki throws in
            let demanded = Counter()
            let allDemanded = Gate()
            let presented = Mutex(false)
            try await withServer({ request in
                guard presented.withLock({ $0 }) else {
                    defer { if demanded.next() == 5 { allDemanded.open() } }
                    return Self.demand
                }
                return Reply(body: "data \(request.path)")
            }) { server throws in
                try await withSession { session throws in
                    let obtained = Counter()
                    let identity = try Self.inMemory(pki.client)
                    try session.addAuthenticator(
                        UserIdentityAuthenticator(origin: server.url("/").origin) { _ in
                            obtained.next()
                            await allDemanded.wait()
                            presented.withLock { $0 = true }
                            return identity
                        })
                    let texts = try await withThrowingTaskGroup(of: String.self) { group in
                        for index in 1...5 {
                            group.addTask { try await session.get(server.url("/data/\(index)")).text }
                        }
                        return try await group.reduce(into: [String]()) { $0.append($1) }
                    }
                    #expect(texts.sorted() == (1...5).map { "data /data/\($0)" })
                    #expect(obtained.count == 1)
                    #expect(server.requests.count == 10)
                }
            }
        }
    }

    /// A login answers the backend's challenge first, then the certificate demand comes: the login does not count
    /// as an identity obtained.
    @Test func aDemandAfterALoginIsAnsweredNotRejected() async throws {
        try await withPKI { pki throws in
            let presented = Mutex(false)
            try await withServer({ request in
                guard request.header("Authorization") == "Basic dXNlcjpwYXNz" else {
                    return Reply(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"test\"")])
                }
                return presented.withLock { $0 } ? Reply(body: "both") : Self.demand
            }) { server throws in
                try await withSession { session throws in
                    let identity = try Self.inMemory(pki.client)
                    try session.addAuthenticator(FixedBasicAuthenticator(origin: server.url("/").origin))
                    try session.addAuthenticator(
                        UserIdentityAuthenticator(origin: server.url("/").origin) { _ in
                            presented.withLock { $0 = true }
                            return identity
                        })
                    #expect(try await session.get(server.url("/data")).text == "both")
                }
            }
        }
    }

    @Test func aDemandThatRemainsAfterObtainingAnIdentityIsRejected() async throws {
        try await withPKI { pki throws in
            try await withServer({ _ in Self.demand }) { server throws in
                try await withSession { session throws in
                    let obtained = Counter()
                    let identity = try Self.inMemory(pki.client)
                    try session.addAuthenticator(
                        UserIdentityAuthenticator(origin: server.url("/").origin) { _ in
                            obtained.next()
                            return identity
                        })
                    let error = await session.failure(of: HTTPRequest(url: server.url("/data")))
                    #expect(error?.code == .certificateRejected, "\(String(describing: error))")
                    #expect(obtained.count == 1)
                    #expect(server.requests.count == 2)
                }
            }
        }
    }

    @Test func anIdentityFromACATheServerDoesNotTrustIsRejectedAtTheHandshake() async throws {
        try await withPKI { pki throws in
            let stranger = try TestIdentity.authority("another CA").issue("stranger", server: false)
            let serverTLS = try pki.serverConfiguration(clientsFrom: pki.authority)
            try await withServer(tls: serverTLS, { _ in Reply() }) { server throws in
                try await withSession(configuration(caBundle: try pki.caBundle)) { session throws in
                    let obtained = Counter()
                    let identity = try Self.inMemory(stranger)
                    try session.addAuthenticator(
                        UserIdentityAuthenticator(origin: server.url("/").origin) { _ in
                            obtained.next()
                            return identity
                        })
                    let error = await session.failure(of: HTTPRequest(url: server.url("/hello")))
                    #expect(error?.code == .certificateRejected, "\(String(describing: error))")
                    #expect(obtained.count == 1)
                    #expect(server.requests.isEmpty)
                }
            }
        }
    }

    @Test func theFailureOfTheSourceEndsTheRequest() async throws {
        try await withServer({ _ in Self.demand }) { server throws in
            try await withSession { session throws in
                try session.addAuthenticator(
                    UserIdentityAuthenticator(origin: server.url("/").origin) { _ throws(HTTPError) in
                        throw HTTPError(.identitySourceFailed, "the PKCS#12 file is gone", transient: false)
                    })
                let error = await session.failure(of: HTTPRequest(url: server.url("/data")))
                #expect(error?.code == .identitySourceFailed)
                #expect(server.requests.count == 1)
            }
        }
    }

    @Test func aFlowsOwnChallengeIsAnsweredLikeADemand() async throws {
        try await withPKI { pki throws in
            let presented = Mutex(false)
            try await withServer({ _ in
                presented.withLock { $0 } ? Reply(body: "ok") : Reply(status: 401, headers: [("x-needs", "cert")])
            }) { server throws in
                try await withSession { session throws in
                    let identity = try Self.inMemory(pki.client)
                    let challenge = ChallengeTest(statuses: [401], header: "x-needs", value: "cert")
                    try session.addAuthenticator(
                        UserIdentityAuthenticator(origin: server.url("/").origin, challenges: [challenge]) { _ in
                            presented.withLock { $0 = true }
                            return identity
                        })
                    #expect(try await session.get(server.url("/data")).text == "ok")
                }
            }
        }
    }
}

/// Sends fixed Basic credentials once the backend has asked for them.
private final class FixedBasicAuthenticator: Authenticator {
    let method = AuthenticationMethod.basic
    let origin: String
    let challenges = ChallengeTest.basic
    private let asked = Mutex(false)

    init(origin: String) {
        self.origin = origin
    }

    func decorate(_ request: inout HTTPRequest) async throws(HTTPError) {
        if asked.withLock({ $0 }) { request.setHeader("Authorization", "Basic dXNlcjpwYXNz") }
    }

    func authenticate(
        after challenge: HTTPResponse, for request: HTTPRequest, transport: HTTPTransport
    ) async throws(HTTPError) {
        asked.withLock { $0 = true }
    }
}
