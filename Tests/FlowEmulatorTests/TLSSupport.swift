import AsyncHTTPClient
import Crypto
import FlowEmulator
import FlowEmulatorData
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// Data for the TLS tests: `com.example.secure` needs a client certificate (Basic login for the certificate
/// service), `com.example.issuer` only offers the certificate service; ada has a password, grace a password and a
/// TOTP key.
enum TLSData {
    static let secure = "com.example.secure"
    static let issuer = "com.example.issuer"
    static let adaPassword = "ada-pass-7731"
    static let gracePassword = "grace-pass-2209"
    static let graceSecret = "JBSWY3DPEHPK3PXP"

    static var data: EmulatorData {
        EmulatorData(
            applications: [
                EmulatorApplication(
                    id: secure, auth: [AuthEntry(type: "basic.default")], clientCertificate: .required,
                    certificateValidity: .seconds(7 * 86_400)),
                EmulatorApplication(id: issuer, auth: [AuthEntry(type: "basic.default")], certificateService: true),
            ],
            users: [
                EmulatorUser(email: "ada@example.com", givenName: "Ada", password: adaPassword),
                EmulatorUser(email: "grace@example.com", password: gracePassword, otpSecret: graceSecret),
            ])
    }

    static func certificateService(_ app: String, _ action: String) -> String {
        "/mobileservices/application/\(app)/certificateservice/v1/\(action)"
    }

    static func me(_ app: String) -> String {
        "/mobileservices/application/\(app)/roleservice/application/\(app)/v2/Me"
    }
}

/// A key pair made in the test and the CSR it signs.
struct TestKey {
    let key = P256.Signing.PrivateKey()

    /// A PEM CSR for the common name `name`, signed with the key.
    func csr(commonName name: String) throws -> String {
        let request = try CertificateSigningRequest(
            version: .v1, subject: try DistinguishedName { CommonName(name) },
            privateKey: Certificate.PrivateKey(key), attributes: CertificateSigningRequest.Attributes())
        return try request.serializeAsPEM().pemString
    }

    /// The same CSR, DER, as a Secure Login client sends it.
    func csrDER(commonName name: String) throws -> [UInt8] {
        let request = try CertificateSigningRequest(
            version: .v1, subject: try DistinguishedName { CommonName(name) },
            privateKey: Certificate.PrivateKey(key), attributes: CertificateSigningRequest.Attributes())
        var serializer = DER.Serializer()
        try serializer.serialize(request)
        return serializer.serializedBytes
    }
}

/// A client identity: a PEM chain (leaf first) and its key.
struct TestClientIdentity {
    let chainPEM: String
    let key: P256.Signing.PrivateKey

    /// The leaf certificate.
    var leaf: Certificate {
        get throws {
            let first = try PEMDocument.parseMultiple(pemString: chainPEM)[0]
            return try Certificate(pemDocument: first)
        }
    }
}

/// An HTTPS client trusting `authorityPEM` (or only the system roots), sending `identity` when asked for one.
func makeTLSClient(trusting authorityPEM: String?, identity: TestClientIdentity? = nil) throws -> HTTPClient {
    var tls = TLSConfiguration.makeClientConfiguration()
    if let authorityPEM {
        tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(authorityPEM.utf8)))]
    }
    if let identity {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(identity.chainPEM.utf8))
        tls.certificateChain = chain.map { .certificate($0) }
        let key = try NIOSSLPrivateKey(bytes: Array(identity.key.pemRepresentation.utf8), format: .pem)
        tls.privateKey = .privateKey(key)
    }
    var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
    configuration.redirectConfiguration = .disallow
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

/// Runs `body` with an HTTPS client as `makeTLSClient` makes it, and shuts the client down afterwards.
func withTLSClient<Value>(
    _ base: URL, trusting authorityPEM: String?, identity: TestClientIdentity? = nil,
    _ body: (Client) async throws -> Value
) async throws -> Value {
    let http = try makeTLSClient(trusting: authorityPEM, identity: identity)
    do {
        let value = try await body(Client(http: http, base: base))
        try await http.shutdown()
        return value
    } catch {
        try? await http.shutdown()
        throw error
    }
}

/// Starts an emulator serving HTTPS with `data`, hands it and a client trusting its CA (no identity) to `body`, and
/// stops both afterwards.
func withTLSEmulator(
    _ data: EmulatorData = TLSData.data, _ body: (BackendEmulator, Client) async throws -> Void
) async throws {
    let emulator = BackendEmulator(data: data)
    let url = try await emulator.start(tls: true)
    do {
        try await withTLSClient(url, trusting: emulator.certificateAuthorityPEM) { client in
            try await body(emulator, client)
        }
    } catch {
        await emulator.stop()
        throw error
    }
    await emulator.stop()
}

extension Client {
    /// A certificate from the certificate service of `app` for `user`, with a key made here.
    func issueCertificate(
        app: String, user: String, password: String
    ) async throws -> (identity: TestClientIdentity, answer: Exchange) {
        let key = TestKey()
        let answer = try await send(
            "POST", TLSData.certificateService(app, "request"),
            headers: [basic(user, password), ("Content-Type", "application/pkcs10")],
            body: try key.csr(commonName: user))
        return (TestClientIdentity(chainPEM: answer.body, key: key.key), answer)
    }
}

extension Exchange {
    /// The client-certificate marker of a 403.
    var certificateMarker: String? { header("x-smp-authentication") }
}
