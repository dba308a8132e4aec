package import CryptoExtras
internal import SwiftASN1
internal import X509

/// The identity provider's signing certificate that the service provider trusts (pinned), and its RSA key.
///
/// Only this key verifies assertions: a certificate sent along in a response's `KeyInfo` is never trusted. The
/// certificate's validity dates are not checked, as usual for a pinned certificate from the provider's metadata.
package struct SAMLTrust: Sendable {
    /// The certificate's RSA public key.
    package let publicKey: _RSA.Signing.PublicKey
    /// The certificate, DER-encoded (to tell whether a response names it).
    package let certificateDER: [UInt8]

    /// Trusts the certificate in `certificatePEM` (`-----BEGIN CERTIFICATE-----`).
    /// - Throws: ``SAMLRefusal`` when it is not a PEM certificate, or its key is not an RSA key of 2048 bits or more.
    package init(certificatePEM: String) throws(SAMLRefusal) {
        let certificate: Certificate
        let document: PEMDocument
        do {
            document = try PEMDocument(pemString: certificatePEM)
            certificate = try Certificate(derEncoded: document.derBytes)
        } catch {
            throw SAMLRefusal("The trusted certificate is not a PEM-encoded X.509 certificate.")
        }
        guard let key = _RSA.Signing.PublicKey(certificate.publicKey) else {
            throw SAMLRefusal(
                "The trusted certificate's key is not an RSA key; only RSA-SHA256 signatures are accepted.")
        }
        guard key.keySizeInBits >= 2048 else {
            throw SAMLRefusal(
                "The trusted certificate's RSA key has \(key.keySizeInBits) bits; at least 2048 are needed.")
        }
        publicKey = key
        certificateDER = document.derBytes
    }
}

/// Why a SAML response is refused, in words for an error page.
///
/// The words name the check that failed and, where it helps, the value this service provider expected; they never
/// quote the response (whose text an attacker chooses).
package struct SAMLRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    package var description: String { reason }
}
