internal import Crypto
package import Foundation
internal import SwiftASN1
package import X509

/// The emulator's certificate authority: it signs the listener's server certificate and the user certificates the
/// certificate service and the Secure Login Server issue. Made at start (P-256, in memory only) unless the data file
/// names one (`tls.ca-certificate`, `tls.ca-key`).
package struct EmulatorAuthority: Sendable {
    package let certificate: Certificate
    package let key: Certificate.PrivateKey

    /// The subject of the CA the emulator makes.
    package static let madeSubject = "flowrun emulator CA"

    /// A new CA with a P-256 key, valid from a day before `now` for ten years.
    package static func make(now: Date = Date(), name: String = madeSubject) -> EmulatorAuthority {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        // The values are fixed and valid: swift-certificates throws only for malformed names or extensions.
        let subject = try! DistinguishedName {
            OrganizationName("flowrun emulator")
            CommonName(name)
        }
        let certificate = try! Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: now - 86_400, notValidAfter: now + 10 * 365 * 86_400, issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: key)
        return EmulatorAuthority(certificate: certificate, key: key)
    }

    package init(certificate: Certificate, key: Certificate.PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// The CA read from PEM text; `nil` with the reason when either does not parse or the key is not the
    /// certificate's.
    package static func read(certificatePEM: String, keyPEM: String) -> Result<EmulatorAuthority, AuthorityProblem> {
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
        } catch {
            return .failure(.certificate("it is not a PEM certificate (\(error))"))
        }
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(pemEncoded: keyPEM)
        } catch {
            return .failure(.key("it is not a PEM private key (P-256 or RSA)"))
        }
        guard key.publicKey == certificate.publicKey else {
            return .failure(.key("it is not the key of the CA certificate"))
        }
        return .success(EmulatorAuthority(certificate: certificate, key: key))
    }

    /// Why a CA given in the data cannot be used: which of the two files, and the reason.
    package enum AuthorityProblem: Error {
        case certificate(String)
        case key(String)
    }

    /// The CA certificate as PEM: what `--ca-out` writes and a client trusts.
    package var certificatePEM: String { Self.pem(certificate) }

    /// The PEM text of `certificate`.
    package static func pem(_ certificate: Certificate) -> String {
        // Serializing a certificate that was parsed or signed here does not fail.
        (try? certificate.serializeAsPEM().pemString) ?? ""
    }

    /// What a certificate the authority signs is for.
    package enum Use {
        /// A TLS server on loopback: `127.0.0.1`, `::1` and `localhost`.
        case server
        /// A user: client authentication.
        case client
    }

    /// Signs a certificate for `publicKey` named `subject`, valid from `notBefore` to `notAfter`.
    package func issue(
        publicKey: Certificate.PublicKey, subject: DistinguishedName, notBefore: Date, notAfter: Date, use: Use
    ) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: certificate.subject, subject: subject,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyEncipherment: use == .server))
                try ExtendedKeyUsage([use == .server ? .serverAuth : .clientAuth])
                if use == .server {
                    SubjectAlternativeNames([
                        .dnsName("localhost"),
                        .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                        .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
                    ])
                }
            },
            issuerPrivateKey: key)
    }

    /// Whether this authority signed `certificate`.
    package func signed(_ other: Certificate) -> Bool {
        other.issuer == certificate.subject && certificate.publicKey.isValidSignature(other.signature, for: other)
    }
}

extension Certificate.SerialNumber {
    /// The serial number in lowercase hex, as ``UserIdentity`` and the retired list keep it.
    package var hex: String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

extension DistinguishedName {
    /// The first common name (`CN`) the name holds.
    package var commonName: String? {
        for name in self {
            for attribute in name where attribute.type == .RDNAttributeType.commonName {
                return String(attribute.value)
            }
        }
        return nil
    }
}

extension Certificate.PublicKey {
    /// The base64 SHA-256 of the DER SubjectPublicKeyInfo: an HPKP-style pin.
    package var pin: String {
        var serializer = DER.Serializer()
        // A parsed or made public key always serializes.
        try? serializer.serialize(self)
        return Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
    }
}
