// A certificate issuer for the mobile-services source tests: Hummingbird 2 on 127.0.0.1 answering as the backend's
// certificate service (the wire of docs/authentication/certificates.md), signing the requests it gets with a CA
// made at test time. The sls source is tested against the emulator's Secure Login Server.
//
// This file imports Hummingbird and HTTPTypes but not FlowHTTP: both define `HTTPRequest` and `HTTPResponse`.

import Crypto
import FlowTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SwiftASN1
import Synchronization
import X509

/// One request as the issuer received it.
struct IssuerRequest: Sendable {
    var method: String
    var path: String
    var query: String?
    var headers: [(name: String, value: String)]
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// What the issuer's certificate service answers, and how it misbehaves when a test asks it to.
struct IssuerSettings: Sendable {
    /// What the certificate service's attributes name.
    var subject = "CN=ada,O=flowrun tests"
    var keyAlgorithm = "P-256"
    /// Certifies another key than the request's: a chain the client must refuse.
    var certifiesAnotherKey = false
}

/// A running issuer: its URL, the requests it received, the certificates it retired.
final class TestIssuer: Sendable {
    let authority: Certificate
    private let state: IssuerState
    private let server: LoopbackServer

    private init(authority: Certificate, state: IssuerState, server: LoopbackServer) {
        self.authority = authority
        self.state = state
        self.server = server
    }

    var url: URL { server.url }
    /// Every request received, in order.
    var requests: [IssuerRequest] { state.requests.withLock { $0 } }
    /// The serial numbers retired through the certificate service.
    var retired: [Certificate.SerialNumber] { state.retired.withLock { $0 } }

    /// Starts an issuer on a free loopback port; returns once it accepts connections.
    static func start(_ settings: IssuerSettings = IssuerSettings()) async throws -> TestIssuer {
        let state = try IssuerState(settings: settings)
        let server = try await LoopbackServer.start(IssuerResponder(state: state), name: "issuer")
        return TestIssuer(authority: state.authority, state: state, server: server)
    }

    func stop() async {
        await server.stop()
    }
}

/// Runs `body` with an issuer, stopping it afterwards (also when `body` throws).
func withIssuer(
    _ settings: IssuerSettings = IssuerSettings(), _ body: (TestIssuer) async throws -> Void
) async throws {
    try await using(try await TestIssuer.start(settings), stop: { await $0.stop() }, body)
}

/// What the issuer knows: its CA, what it received and retired.
final class IssuerState: Sendable {
    let settings: IssuerSettings
    let authority: Certificate
    private let authorityKey: P256.Signing.PrivateKey
    let requests = Mutex<[IssuerRequest]>([])
    let retired = Mutex<[Certificate.SerialNumber]>([])

    init(settings: IssuerSettings) throws {
        self.settings = settings
        authorityKey = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("flowrun test issuer") }
        authority = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(authorityKey.publicKey), notValidBefore: Date() - 3600,
            notValidAfter: Date() + 86_400, issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(authorityKey))
    }

    /// The answer to `request`.
    func answer(_ request: IssuerRequest) throws -> (Int, String) {
        switch (request.method, request.path) {
        case ("GET", let path) where path.hasSuffix("/certificateservice/v1/attributes"):
            let attributes = #"{"subject": "\#(settings.subject)", "keyAlgorithm": "\#(settings.keyAlgorithm)", "#
            return (200, attributes + #""validitySeconds": 3600}"#)
        case ("POST", let path) where path.hasSuffix("/certificateservice/v1/request"):
            return try issue(request.body)
        case ("POST", let path) where path.hasSuffix("/certificateservice/v1/retire"):
            let leaf = try Certificate(pemEncoded: request.body)
            retired.withLock { $0.append(leaf.serialNumber) }
            return (204, "")
        default:
            return (404, "no route for \(request.method) \(request.path)")
        }
    }

    /// Signs the PEM request `body` after checking its signature: 201 with the leaf and the CA.
    private func issue(_ body: String) throws -> (Int, String) {
        let request = try CertificateSigningRequest(pemEncoded: body)
        guard request.publicKey.isValidSignature(request.signature, for: request) else {
            return (400, #"{"error": "the request's signature does not verify"}"#)
        }
        let publicKey =
            settings.certifiesAnotherKey
            ? Certificate.PublicKey(P256.Signing.PrivateKey().publicKey) : request.publicKey
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: Date() - 60, notValidAfter: Date() + 3600, issuer: authority.subject,
            subject: request.subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.clientAuth])
            },
            issuerPrivateKey: Certificate.PrivateKey(authorityKey))
        return (201, try leaf.serializeAsPEM().pemString + "\n" + authority.serializeAsPEM().pemString + "\n")
    }

}

/// Records every request and answers it from the issuer's state.
struct IssuerResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let state: IssuerState

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        let received = IssuerRequest(
            method: request.method.rawValue, path: request.uri.path, query: request.uri.query,
            headers: request.headers.map { ($0.name.rawName, $0.value) }, body: String(buffer: body))
        state.requests.withLock { $0.append(received) }
        let (status, text) = (try? state.answer(received)) ?? (400, #"{"error": "cannot read the request"}"#)
        return Response(
            status: HTTPTypes.HTTPResponse.Status(code: status),
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
