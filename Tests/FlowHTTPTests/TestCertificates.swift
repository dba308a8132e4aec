// Certificates made at test time with swift-certificates: a CA, a server certificate for 127.0.0.1 and localhost,
// client certificates, and PEM files of them in a temporary folder for the session's settings.

import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A key pair and its certificate, with their PEM text.
struct TestIdentity {
    let key: P256.Signing.PrivateKey
    let certificate: Certificate

    var certificatePEM: String { get throws { try certificate.serializeAsPEM().pemString } }
    var keyPEM: String { key.pemRepresentation }

    /// The base64 SHA-256 of the certificate's DER SubjectPublicKeyInfo, as a pin set writes it.
    var pin: String {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate.publicKey)
            return Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
        }
    }

    /// A self-signed CA.
    static func authority(_ name: String) throws -> TestIdentity {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date() - 3600, notValidAfter: Date() + 86_400, issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        return TestIdentity(key: key, certificate: certificate)
    }

    /// A certificate this CA signs: for a server on 127.0.0.1 and localhost, or for a client.
    func issue(_ name: String, server: Bool) throws -> TestIdentity {
        let key = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date() - 3600, notValidAfter: Date() + 86_400, issuer: certificate.subject,
            subject: try DistinguishedName { CommonName(name) }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([server ? .serverAuth : .clientAuth])
                if server {
                    SubjectAlternativeNames([
                        .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    ])
                }
            },
            issuerPrivateKey: Certificate.PrivateKey(self.key))
        return TestIdentity(key: key, certificate: certificate)
    }

    var nioCertificate: NIOSSLCertificate {
        get throws { try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem) }
    }

    var nioKey: NIOSSLPrivateKey {
        get throws { try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem) }
    }
}

/// A CA, a server certificate it signs, a client certificate it signs, and files of them.
struct TestPKI {
    let authority: TestIdentity
    let server: TestIdentity
    let client: TestIdentity
    let folder: URL

    init() throws {
        authority = try .authority("flowrun test CA")
        server = try authority.issue("flowrun test server", server: true)
        client = try authority.issue("flowrun test user", server: false)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Writes `text` to a file in the folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// The CA certificate as a bundle file.
    var caBundle: String { get throws { try write("ca.pem", authority.certificatePEM) } }

    /// A client identity in two PEM files.
    func identity(_ identity: TestIdentity) throws -> ClientIdentityFiles {
        ClientIdentityFiles(
            certificate: try write("\(identity.certificate.serialNumber).crt", identity.certificatePEM),
            key: try write("\(identity.certificate.serialNumber).key", identity.keyPEM))
    }

    /// The server's TLS configuration; with `clientsFrom`, it requires a client certificate that CA signed.
    func serverConfiguration(
        clientsFrom clientAuthority: TestIdentity? = nil, maximumVersion: TLSVersion? = nil
    ) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try server.nioCertificate)], privateKey: .privateKey(try server.nioKey))
        if let clientAuthority {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([try clientAuthority.nioCertificate])
        }
        configuration.maximumTLSVersion = maximumVersion
        return configuration
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

struct ClientIdentityFiles {
    let certificate: String
    let key: String
}
