import FlowEmulatorData
internal import Foundation
internal import SwiftASN1
internal import X509

/// The emulator's certificate side as the backend sees it for one request: its CA, the other CAs it trusts for
/// users, the TLS faults switched on, and the pin of the listener's key while it serves HTTPS.
struct EmulatorCertificates: Sendable {
    var authority: EmulatorAuthority
    var clientAuthorities: [Certificate]
    var faults: Set<TLSFault>
    /// The pins of the listener's server key while it serves HTTPS; empty otherwise.
    var serverPins: [String] = []

    /// The material `tls` names; a CA of its own when it names none. The reader has checked the PEM text already;
    /// data made in code that does not parse is left out the same way.
    init(tls: EmulatorTLSData) {
        authority =
            tls.authority.flatMap { pem in
                try? EmulatorAuthority.read(certificatePEM: pem.certificatePEM, keyPEM: pem.keyPEM).get()
            } ?? .make()
        clientAuthorities = tls.clientAuthoritiesPEM.compactMap { try? Certificate(pemEncoded: $0) }
        faults = tls.faults
    }

    /// Whether `certificate` was signed by the emulator's CA or by one of the client CAs.
    func trusts(_ certificate: Certificate) -> Bool {
        authority.signed(certificate)
            || clientAuthorities.contains { issuer in
                certificate.issuer == issuer.subject
                    && issuer.publicKey.isValidSignature(certificate.signature, for: certificate)
            }
    }
}

/// What a client certificate sent with a request counts for.
enum CertificateStanding: Equatable {
    /// None was sent (or the request came over plain http).
    case absent
    /// A trusted, valid certificate naming a known user: a login as that user.
    case user(EmulatorUser)
    /// A trusted, valid certificate whose common name is no user the emulator knows.
    case notAUser(String)
    /// A certificate refused: another CA, expired, retired or revoked; the reason says which.
    case rejected(String)
}
